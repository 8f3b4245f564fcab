//! Notifications across processes, through Unix datagram sockets.
//!
//! Each kind of notification has a directory beside the database file, mode 0700:
//! `<database>.notify/` for lease releases, `<database>.due/` for executions that became due
//! and `<database>.pending/` for partitions that became pending. Each subscription binds a
//! datagram socket there. After a change commits, the writing
//! process sends a datagram (the lease name, or a fixed wake-up) to every socket in that
//! directory without blocking, and deletes the socket files whose owner is gone. Nothing polls:
//! an idle subscriber sleeps in `recv`. Datagrams are best effort (a full receive queue drops
//! one), so waiters keep their retry period as a fallback.

use std::ffi::OsString;
use std::io::ErrorKind as IoErrorKind;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use baton_core::{Error, ErrorKind, LeaseChanges, LeaseName, Result};
use tokio::net::UnixDatagram;

use self::address::Addresses;
pub(crate) use self::wakeup::{WAKE_UP, WakeupSubscription};

mod address;
mod wakeup;

/// The extension of subscription socket files; anything else in the directory is ignored.
const SOCKET_EXTENSION: &str = "sock";
/// Room for the longest lease name (200 bytes) with margin; longer datagrams are not ours.
const DATAGRAM_BYTES: usize = 512;

/// Sends and receives one kind of notification for one database file.
#[derive(Debug, Clone)]
pub(crate) struct Notifier {
    dir: PathBuf,
    /// What the notifications announce, for messages: "lease releases".
    what: &'static str,
}

impl Notifier {
    /// The lease-release notifier of the database at `database` (an absolute, canonical path,
    /// so that every process finds the same directory).
    pub(crate) fn beside(database: &Path) -> Self {
        Notifier::in_dir(database, ".notify", "lease releases")
    }

    /// The notifier of executions that became due, for the database at `database`; a
    /// directory of its own, so that lease waiters never see these wake-ups.
    pub(crate) fn due_beside(database: &Path) -> Self {
        Notifier::in_dir(database, ".due", "due executions")
    }

    /// The notifier of partitions that became pending (a batch created, partitions moved off
    /// a departed node), for the database at `database`.
    pub(crate) fn pending_beside(database: &Path) -> Self {
        Notifier::in_dir(database, ".pending", "pending partitions")
    }

    fn in_dir(database: &Path, suffix: &str, what: &'static str) -> Self {
        let mut dir = OsString::from(database.as_os_str());
        dir.push(suffix);
        Notifier { dir: PathBuf::from(dir), what }
    }

    /// Binds a new subscription socket.
    pub(crate) fn subscribe(&self) -> Result<Subscription> {
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&self.dir).map_err(
            |err| {
                unavailable(format!(
                    "cannot create the notification directory {}: {err}",
                    self.dir.display()
                ))
            },
        )?;
        let mut addresses = Addresses::new(&self.dir);
        let mut last_error = None;
        for _ in 0..4 {
            let file =
                format!("{:x}-{:08x}.{SOCKET_EXTENSION}", std::process::id(), fastrand::u32(..));
            let path = self.dir.join(&file);
            let bound = addresses.of(file.as_ref()).and_then(UnixDatagram::bind);
            match bound {
                Ok(socket) => return Ok(Subscription { socket, path }),
                Err(err) if err.kind() == IoErrorKind::AddrInUse => last_error = Some((path, err)),
                Err(err) => return Err(self.bind_failed(&path, err)),
            }
        }
        let (path, err) = last_error.expect("at least one attempt");
        Err(self.bind_failed(&path, err))
    }

    /// Tells every subscriber, in every process, that `name` was released. Never blocks and
    /// never fails: a lost notification only delays a waiter until its next retry.
    pub(crate) fn publish(&self, name: &LeaseName) {
        self.send(name.as_str().as_bytes());
    }

    /// Sends `payload` to every subscriber, in every process. Never blocks and never fails.
    pub(crate) fn send(&self, payload: &[u8]) {
        let what = self.what;
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(err) if err.kind() == IoErrorKind::NotFound => return,
            Err(err) => {
                tracing::debug!(dir = %self.dir.display(), %err, what, "cannot list subscribers");
                return;
            }
        };
        let sender = match std::os::unix::net::UnixDatagram::unbound()
            .and_then(|socket| socket.set_nonblocking(true).map(|()| socket))
        {
            Ok(sender) => sender,
            Err(err) => {
                tracing::debug!(%err, what, "cannot open a socket to notify subscribers");
                return;
            }
        };
        let mut addresses = Addresses::new(&self.dir);
        for path in entries.flatten().map(|entry| entry.path()) {
            if path.extension().is_some_and(|ext| ext == SOCKET_EXTENSION) {
                deliver(&sender, payload, &path, &mut addresses);
            }
        }
    }

    fn bind_failed(&self, path: &Path, err: std::io::Error) -> Error {
        unavailable(format!("cannot listen for {} at {}: {err}", self.what, path.display()))
    }
}

fn deliver(
    sender: &std::os::unix::net::UnixDatagram,
    payload: &[u8],
    path: &Path,
    addresses: &mut Addresses<'_>,
) {
    let sent = path
        .file_name()
        .ok_or_else(|| std::io::Error::from(IoErrorKind::NotFound))
        .and_then(|file| addresses.of(file))
        .and_then(|address| sender.send_to(payload, address));
    match sent {
        Ok(_) => {}
        Err(err)
            if matches!(err.kind(), IoErrorKind::ConnectionRefused | IoErrorKind::NotFound) =>
        {
            // The subscriber's process is gone without removing its socket file.
            if let Err(err) = std::fs::remove_file(path)
                && err.kind() != IoErrorKind::NotFound
            {
                tracing::debug!(path = %path.display(), %err, "cannot remove a stale subscriber");
            }
        }
        Err(err) if err.kind() == IoErrorKind::WouldBlock => {
            tracing::debug!(path = %path.display(), "subscriber queue full; dropped");
        }
        Err(err) => tracing::debug!(path = %path.display(), %err, "cannot notify a subscriber"),
    }
}

fn unavailable(message: String) -> Error {
    Error::new(ErrorKind::Unavailable, format!("SQLite store: {message}"))
}

/// One process's feed of one kind of notification; removes its socket file when dropped.
#[derive(Debug)]
pub(crate) struct Subscription {
    socket: UnixDatagram,
    path: PathBuf,
}

impl Subscription {
    /// Waits for the next datagram and returns its length.
    async fn recv(&mut self, buf: &mut [u8]) -> Result<usize> {
        self.socket
            .recv(buf)
            .await
            .map_err(|err| unavailable(format!("receiving on {}: {err}", self.path.display())))
    }

    /// Discards the datagrams already queued, without waiting.
    fn drain(&mut self) {
        let mut buf = [0u8; DATAGRAM_BYTES];
        while self.socket.try_recv(&mut buf).is_ok() {}
    }
}

#[async_trait]
impl LeaseChanges for Subscription {
    async fn next(&mut self) -> Result<LeaseName> {
        let mut buf = [0u8; DATAGRAM_BYTES];
        loop {
            let len = self.recv(&mut buf).await?;
            match std::str::from_utf8(&buf[..len]).ok().and_then(|text| LeaseName::new(text).ok()) {
                Some(name) => return Ok(name),
                None => {
                    tracing::debug!(path = %self.path.display(), len, "ignored a malformed datagram")
                }
            }
        }
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Err(err) = std::fs::remove_file(&self.path)
            && err.kind() != IoErrorKind::NotFound
        {
            tracing::debug!(path = %self.path.display(), %err, "cannot remove a subscription socket");
        }
    }
}
