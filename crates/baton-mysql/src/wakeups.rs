//! Wake-ups of idle waiters without `LISTEN`/`NOTIFY`: a counter and a named lock per channel.
//!
//! A channel ([`DUE`]: executions made due for the workers; [`PENDING`]: partitions made
//! pending for the nodes) is a counter row of `baton_cluster_counters` and a named lock of this
//! database. Every transaction that makes something available raises the channel's counter as
//! its last write ([`raise`]), then rings the channel after its commit ([`Bell::ring`]).
//!
//! A subscription watches the counter on a connection of its own, one statement per wait
//! (`wakeup_wait.sql`): it reads the counter and, only when that is the count it last saw,
//! blocks on the channel's lock for at most [`WAIT`]. A wake-up is a change of the counter, so
//! none is lost: a raise that commits while no wait blocks is read by the next wait, and the
//! counter read before [`Bell::subscribe`] returns is the one every later raise changes.
//!
//! The lock is kept by the backend that rang last, on a connection of its own. A keeper rings
//! by letting go of the lock, which ends every blocked wait at once, and taking it back. A
//! ringer that does not keep it tries to take it without waiting, so that its later rings wake
//! at once. A backend that has not rung for [`WAIT`] closes that connection, letting go of the
//! lock, so the role never stays with a backend that stopped ringing.
//!
//! Limits: ringing is best effort and never fails an operation. A ring from a backend that does
//! not keep the lock (another one does, or it was only taking it now) reaches other processes
//! at their waiters' next read of the counter, within [`WAIT`]; so does a ring while no backend
//! keeps the lock (waits then only sleep). Every ring reaches the subscribers of the ringing
//! backend at once, in process.

use std::sync::{Arc, Weak};
use std::time::Duration;

use async_trait::async_trait;
use baton_core::cluster::PendingChanges;
use baton_core::job::DueChanges;
use baton_core::{Error, ErrorKind, Result};
use sqlx::mysql::MySqlConnectOptions;
use sqlx::{ConnectOptions, Connection, MySqlConnection};
use tokio::sync::{Mutex, broadcast, mpsc};
use tokio::time::Instant;

use crate::error::query_error;
use crate::queries::{WAKEUP_COUNT, WAKEUP_RAISE, WAKEUP_RING, WAKEUP_WAIT};
use crate::tx::Failure;

/// The longest one wait blocks, so an idle subscription runs one statement per period; also
/// how long a ring from a backend that does not keep the lock may take to reach other
/// processes, and how long a backend keeps the lock without ringing.
const WAIT: Duration = Duration::from_secs(10);
/// How long a keeper that rang waits to take the lock back once the waiters have let go of it.
const RETAKE_SECONDS: i64 = 2;

/// A wake-up channel: its counter row and named lock are called `name`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Channel {
    name: &'static str,
    what: &'static str,
}

/// Executions made due for the workers.
pub(crate) const DUE: Channel = Channel { name: "due", what: "due executions" };
/// Partitions made pending for the nodes to claim.
pub(crate) const PENDING: Channel = Channel { name: "pending", what: "pending partitions" };

/// Counts, inside the caller's transaction, one wake-up of `channel`.
pub(crate) async fn raise(conn: &mut MySqlConnection, channel: Channel) -> Result<(), Failure> {
    sqlx::query(WAKEUP_RAISE).bind(channel.name).execute(conn).await?;
    Ok(())
}

/// One backend's side of a channel: its ringing connection and the in-process feed of its
/// rings.
#[derive(Clone)]
pub(crate) struct Bell {
    channel: Channel,
    options: Arc<MySqlConnectOptions>,
    ringer: Arc<Mutex<Ringer>>,
    local: broadcast::Sender<()>,
}

/// The ringing connection (open from a ring until [`WAIT`] passes without one), whether it
/// keeps the channel's lock, and when this backend last rang.
struct Ringer {
    conn: Option<MySqlConnection>,
    keeps: bool,
    last: Instant,
}

impl Bell {
    pub(crate) fn new(channel: Channel, options: Arc<MySqlConnectOptions>) -> Self {
        let (local, _) = broadcast::channel(1);
        let ringer = Ringer { conn: None, keeps: false, last: Instant::now() };
        Bell { channel, options, ringer: Arc::new(Mutex::new(ringer)), local }
    }

    /// Rings after a commit that raised the channel's counter; never fails.
    pub(crate) async fn ring(&self) {
        let _ = self.local.send(());
        let mut guard = self.ringer.lock().await;
        let ringer = &mut *guard;
        ringer.last = Instant::now();
        let conn = match &mut ringer.conn {
            Some(conn) => conn,
            None => match self.options.connect().await {
                Ok(conn) => {
                    tokio::spawn(close_when_idle(Arc::downgrade(&self.ringer)));
                    ringer.conn.insert(conn)
                }
                Err(err) => {
                    tracing::debug!(channel = self.channel.name, %err, "cannot open the bell");
                    return;
                }
            },
        };
        let rung = sqlx::query_as::<_, (Option<i64>, i64)>(WAKEUP_RING)
            .bind(ringer.keeps)
            .bind(self.channel.name)
            .bind(self.channel.name)
            .bind(if ringer.keeps { RETAKE_SECONDS } else { 0 })
            .fetch_one(conn)
            .await;
        match rung {
            Ok((_, kept)) => ringer.keeps = kept == 1,
            Err(err) => {
                // Its session is gone, and the lock with it: that rang too.
                tracing::debug!(channel = self.channel.name, %err, "the bell connection broke");
                ringer.conn = None;
                ringer.keeps = false;
            }
        }
    }

    /// Subscribes to the channel's wake-ups; the feed is live once this returns.
    pub(crate) async fn subscribe(&self) -> Result<Subscription> {
        let doing = format!("subscribing to {}", self.channel.what);
        let local = self.local.subscribe();
        let mut conn = self.options.connect().await.map_err(|err| query_error(&doing, err))?;
        let seen: i64 = sqlx::query_scalar(WAKEUP_COUNT)
            .bind(self.channel.name)
            .fetch_one(&mut conn)
            .await
            .map_err(|err| query_error(&doing, err))?;
        let (wakes, remote) = mpsc::channel(1);
        let task = tokio::spawn(watch(self.channel, conn, seen, wakes));
        Ok(Subscription {
            channel: self.channel,
            local,
            _keep_open: self.local.clone(),
            remote,
            task,
            broken: false,
        })
    }
}

/// Closes the ringing connection once [`WAIT`] passed without a ring, letting go of the lock;
/// ends then, or when the bell is gone or its connection broke meanwhile.
async fn close_when_idle(ringer: Weak<Mutex<Ringer>>) {
    let mut until = Instant::now() + WAIT;
    loop {
        tokio::time::sleep_until(until).await;
        let Some(ringer) = ringer.upgrade() else { return };
        let mut ringer = ringer.lock().await;
        until = ringer.last + WAIT;
        if until <= Instant::now() {
            if let Some(conn) = ringer.conn.take() {
                let _ = conn.close().await;
            }
            ringer.keeps = false;
            return;
        }
        if ringer.conn.is_none() {
            return;
        }
    }
}

/// Waits over and over, passing on each change of the counter as one wake-up (wake-ups not yet
/// taken are merged), until the subscription is dropped or the connection breaks.
async fn watch(
    channel: Channel,
    mut conn: MySqlConnection,
    mut seen: i64,
    wakes: mpsc::Sender<Result<()>>,
) {
    let seconds = i64::try_from(WAIT.as_secs()).unwrap_or(i64::MAX);
    loop {
        let read = sqlx::query_scalar::<_, i64>(WAKEUP_WAIT)
            .bind(seen)
            .bind(channel.name)
            .bind(seconds)
            .bind(channel.name)
            .bind(seconds)
            .bind(channel.name)
            .bind(channel.name)
            .fetch_one(&mut conn)
            .await;
        match read {
            // Unchanged: the wait timed out, or a ring ended it and the next read sees it.
            Ok(rings) if rings == seen => {}
            Ok(rings) => {
                seen = rings;
                if let Err(mpsc::error::TrySendError::Closed(_)) = wakes.try_send(Ok(())) {
                    return;
                }
            }
            Err(err) => {
                let doing = format!("waiting for {}", channel.what);
                let _ = wakes.send(Err(query_error(&doing, err))).await;
                return;
            }
        }
    }
}

/// A subscription to a channel: rings of this backend in process, and changes of the counter
/// over a connection of its own.
pub(crate) struct Subscription {
    channel: Channel,
    local: broadcast::Receiver<()>,
    /// Keeps the in-process feed open as long as the subscription lives.
    _keep_open: broadcast::Sender<()>,
    remote: mpsc::Receiver<Result<()>>,
    task: tokio::task::JoinHandle<()>,
    broken: bool,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        // Aborting the watch drops its connection.
        self.task.abort();
    }
}

impl Subscription {
    async fn next(&mut self) -> Result<()> {
        if self.broken {
            return Err(self.broken_feed());
        }
        tokio::select! {
            // A lagging receiver missed rings, which is one wake-up all the same.
            _ = self.local.recv() => Ok(()),
            remote = self.remote.recv() => match remote {
                Some(Ok(())) => Ok(()),
                Some(Err(err)) => {
                    self.broken = true;
                    Err(err)
                }
                None => {
                    self.broken = true;
                    Err(self.broken_feed())
                }
            },
        }
    }

    fn broken_feed(&self) -> Error {
        Error::new(
            ErrorKind::Unavailable,
            format!("the {} feed lost its MySQL connection: subscribe again", self.channel.what),
        )
    }
}

#[async_trait]
impl DueChanges for Subscription {
    async fn next(&mut self) -> Result<()> {
        Subscription::next(self).await
    }
}

#[async_trait]
impl PendingChanges for Subscription {
    async fn next(&mut self) -> Result<()> {
        Subscription::next(self).await
    }
}
