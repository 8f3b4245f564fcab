//! The process's session with the ensemble: one session carries every lease of the process,
//! and a new one replaces it once the ensemble expired it.
//!
//! A session expiry ends every term held through it at once (the ensemble deletes its
//! ephemeral term nodes). A lost connection does not: the client reconnects to any member
//! within the session timeout, and meanwhile the holder's local deadline governs.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use baton_core::{Error, ErrorKind, Result};
use zookeeper_client::{Acls, Client, CreateMode, CreateOptions, Error as ZkError};

use crate::error::request_error;
use crate::paths::{BASE, CLOCK, LEASES};
use crate::url::Target;

/// How long one member may take to answer a connection before the client tries the next.
const CONNECTION_TIMEOUT: Duration = Duration::from_secs(4);

/// A session and what it learned of the ensemble's clock.
pub(crate) struct Session {
    pub(crate) target: Target,
    client: Mutex<Client>,
    reconnect: tokio::sync::Mutex<()>,
    /// The latest ensemble time seen in a write's answer, and when it was seen here.
    seen: Mutex<(i64, Instant)>,
}

impl Session {
    /// Opens a session and checks the chroot and the credentials; writes nothing.
    pub(crate) async fn open(target: Target) -> Result<Session> {
        let client = connect(&target).await?;
        check(&target, &client).await?;
        Ok(Session {
            target,
            client: Mutex::new(client),
            reconnect: tokio::sync::Mutex::new(()),
            seen: Mutex::new((0, Instant::now())),
        })
    }

    /// The client of a live session, after replacing an expired one.
    pub(crate) async fn client(&self) -> Result<Client> {
        let current = self.current();
        if !current.state().is_terminated() {
            return Ok(current);
        }
        let _one = self.reconnect.lock().await;
        let current = self.current();
        if !current.state().is_terminated() {
            return Ok(current);
        }
        tracing::warn!(
            ensemble = %self.target.endpoint(),
            "the ZooKeeper session ended ({}): every lease held through it is lost; opening a new one",
            current.state()
        );
        let fresh = connect(&self.target).await?;
        *self.client.lock().unwrap_or_else(|e| e.into_inner()) = fresh.clone();
        Ok(fresh)
    }

    fn current(&self) -> Client {
        self.client.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The session timeout the ensemble granted.
    pub(crate) fn timeout(&self) -> Duration {
        self.current().session_timeout()
    }

    /// Notes the modification time of a write's answer: the ensemble's clock then.
    pub(crate) fn observe(&self, mtime: i64) {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if mtime >= seen.0 {
            *seen = (mtime, Instant::now());
        }
    }

    /// An estimate of the ensemble's clock now, from the latest write seen: good enough to
    /// refuse an acquisition without a write, never used to grant one.
    pub(crate) fn estimate(&self) -> i64 {
        let (mtime, at) = *self.seen.lock().unwrap_or_else(|e| e.into_inner());
        mtime.saturating_add(i64::try_from(at.elapsed().as_millis()).unwrap_or(i64::MAX))
    }

    /// ACLs for the nodes baton creates: the digest user's alone with credentials, open
    /// otherwise.
    pub(crate) fn acls(&self) -> Acls<'static> {
        match self.target.digest {
            Some(_) => Acls::creator_all(),
            None => Acls::anyone_all(),
        }
    }

    /// Options for a node of `mode`.
    pub(crate) fn options(&self, mode: CreateMode) -> CreateOptions<'static> {
        mode.with_acls(self.acls())
    }

    /// Creates the base nodes if missing.
    pub(crate) async fn ensure_base(&self, client: &Client) -> Result<()> {
        let options = self.options(CreateMode::Persistent);
        for path in [BASE, LEASES, CLOCK] {
            match client.create(path, b"", &options).await {
                Ok(_) | Err(ZkError::NodeExists) => {}
                Err(err) => return Err(self.error(format!("creating {path}"), &err)),
            }
        }
        Ok(())
    }

    /// The error of a failed request.
    pub(crate) fn error(&self, action: impl std::fmt::Display, err: &ZkError) -> Error {
        request_error(&self.target, action, err)
    }
}

async fn connect(target: &Target) -> Result<Client> {
    let mut connector = Client::connector()
        .with_session_timeout(target.session_timeout)
        .with_connection_timeout(CONNECTION_TIMEOUT.min(target.session_timeout * 2 / 5))
        .with_fail_eagerly();
    if let Some(digest) = &target.digest {
        connector = connector.with_auth("digest", digest.as_bytes());
    }
    let client = connector.connect(&target.connect_string()).await.map_err(|err| {
        let kind = match err {
            ZkError::AuthFailed => ErrorKind::InvalidInput,
            _ => ErrorKind::Unavailable,
        };
        Error::new(
            kind,
            format!("cannot connect to ZooKeeper at {} ({:?}): {err}", target.endpoint(), target),
        )
    })?;
    let granted = client.session_timeout();
    if granted != target.session_timeout {
        tracing::info!(
            asked = ?target.session_timeout,
            ?granted,
            "the ZooKeeper ensemble granted another session timeout: leases may not outlive it"
        );
    }
    Ok(client)
}

/// Refuses a chroot that does not exist and credentials that cannot read baton's nodes.
async fn check(target: &Target, client: &Client) -> Result<()> {
    let endpoint = target.endpoint();
    match client.check_stat("/").await {
        Ok(Some(_)) => {}
        Ok(None) => {
            return Err(Error::invalid_input(format!(
                "ZooKeeper at {endpoint} has no node {} for the chroot of the URL {target:?}: \
                 create it first (baton does not create chroots) or leave the chroot out",
                target.chroot.as_deref().unwrap_or("/")
            )));
        }
        Err(err) => return Err(request_error(target, "checking the chroot", &err)),
    }
    match client.list_children(BASE).await {
        Ok(_) | Err(ZkError::NoNode) => Ok(()),
        Err(ZkError::NoAuth) => Err(Error::invalid_input(format!(
            "ZooKeeper at {endpoint} refuses the {} the nodes under {BASE}: check the digest \
             credentials (USER:PASSWORD@) of the URL {target:?}",
            match target.digest {
                Some(_) => "digest credentials of the URL access to",
                None => "URL without credentials access to",
            }
        ))),
        Err(err) => Err(request_error(target, "checking access", &err)),
    }
}
