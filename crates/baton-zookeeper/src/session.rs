//! The process's session with the ensemble: one session carries every lease of the process,
//! and a new one replaces it once the ensemble expired it.
//!
//! A session expiry ends every term held through it at once (the ensemble deletes its
//! ephemeral term nodes). A lost connection does not: the client reconnects to any member
//! within the session timeout, and meanwhile the holder's local deadline governs.
//!
//! The client's own reconnection backs off, doubling its pause after each round of the members
//! (to 4.8 s and beyond after a few seconds of an election), so it can come back seconds after
//! the ensemble serves again. A client disconnected for longer than [`RESUME_AFTER`] is
//! therefore replaced by a fresh connection to the same session, tried at most once per
//! [`RESUME_AFTER`]. The session, and with it every term node, stays. The replaced client
//! cannot be stopped: when its back-off ends it attaches to the session once more, which cuts
//! the connection in use once (the client reconnects at once; a request cut has an unknown
//! outcome, as after any lost connection), and then it closes, firing the watches left through
//! it. Clients are therefore detached: dropping one never closes the session.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use baton_core::{Error, ErrorKind, Result};
use zookeeper_client::{
    Acls, Client, CreateMode, CreateOptions, Error as ZkError, SessionInfo, SessionState,
};

use crate::error::request_error;
use crate::paths::{BASE, CLOCK, LEASES};
use crate::url::Target;

/// How long one member may take to answer a connection before the client tries the next.
const CONNECTION_TIMEOUT: Duration = Duration::from_secs(4);

/// How long a client may stay disconnected, reconnecting on its own back-off, before the
/// session is resumed on a fresh connection; and the pause between two such attempts.
const RESUME_AFTER: Duration = Duration::from_secs(1);

/// A session and what it learned of the ensemble's clock.
pub(crate) struct Session {
    pub(crate) target: Target,
    client: Mutex<Attached>,
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
            client: Mutex::new(Attached::new(client, 0)),
            reconnect: tokio::sync::Mutex::new(()),
            seen: Mutex::new((0, Instant::now())),
        })
    }

    /// The client of a live session: after replacing an expired session, or after resuming the
    /// session on a fresh connection when the client has been disconnected too long.
    pub(crate) async fn client(&self) -> Result<Client> {
        Ok(self.attached().await?.0)
    }

    /// [`Session::client`], with its generation: how many clients the process attached before
    /// it. A watch left through one client fires through that client only.
    pub(crate) async fn attached(&self) -> Result<(Client, u64)> {
        let current = self.current();
        let state = current.client.state();
        let current = if state.is_terminated() {
            self.replace_ended().await?
        } else if state == SessionState::Disconnected && current.resume_due() {
            self.resume(current).await?
        } else {
            current
        };
        Ok((current.client, current.generation))
    }

    /// Opens a new session in place of one that ended.
    async fn replace_ended(&self) -> Result<Attached> {
        let _one = self.reconnect.lock().await;
        let current = self.current();
        if !current.client.state().is_terminated() {
            return Ok(current);
        }
        tracing::warn!(
            ensemble = %self.target.endpoint(),
            "the ZooKeeper session ended ({}): every lease held through it is lost; opening a new one",
            current.client.state()
        );
        Ok(self.attach(connect(&self.target).await?))
    }

    /// Resumes the session of `current` on a fresh connection, unless another call is at it or
    /// did it. Until it succeeds, requests go to `current`, which keeps reconnecting on its own.
    async fn resume(&self, current: Attached) -> Result<Attached> {
        let Ok(_one) = self.reconnect.try_lock() else { return Ok(current) };
        let now = self.current();
        if now.generation != current.generation {
            return Ok(now);
        }
        current.postpone_resume();
        let session = current.client.session().clone();
        match dial(&self.target, Some(session)).await {
            Ok(fresh) => {
                tracing::info!(
                    ensemble = %self.target.endpoint(),
                    "resumed the ZooKeeper session on a fresh connection"
                );
                Ok(self.attach(fresh))
            }
            Err(ZkError::SessionExpired) => {
                tracing::warn!(
                    ensemble = %self.target.endpoint(),
                    "the ZooKeeper session expired while disconnected: every lease held through \
                     it is lost; opening a new one"
                );
                Ok(self.attach(connect(&self.target).await?))
            }
            Err(err) => {
                tracing::debug!(%err, "the ZooKeeper session could not be resumed yet");
                Ok(current)
            }
        }
    }

    /// Makes `client` the session's client, of the next generation.
    fn attach(&self, client: Client) -> Attached {
        let mut slot = self.client.lock().unwrap_or_else(|e| e.into_inner());
        *slot = Attached::new(client, slot.generation + 1);
        slot.clone()
    }

    fn current(&self) -> Attached {
        self.client.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The session timeout the ensemble granted.
    pub(crate) fn timeout(&self) -> Duration {
        self.current().client.session_timeout()
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

/// A client, its generation, and from when its session may be resumed on a fresh connection
/// (set while it is disconnected).
#[derive(Clone)]
struct Attached {
    client: Client,
    generation: u64,
    resume_at: Arc<Mutex<Option<Instant>>>,
}

impl Attached {
    /// Attaches `client`, following its connection state until its session ends.
    fn new(client: Client, generation: u64) -> Attached {
        let resume_at = Arc::new(Mutex::new(None));
        let mut watcher = client.state_watcher();
        let tracked = Arc::downgrade(&resume_at);
        tokio::spawn(async move {
            loop {
                let state = watcher.changed().await;
                let Some(resume_at) = tracked.upgrade() else { return };
                *resume_at.lock().unwrap_or_else(|e| e.into_inner()) =
                    (state == SessionState::Disconnected).then(|| Instant::now() + RESUME_AFTER);
                if state.is_terminated() {
                    return;
                }
            }
        });
        Attached { client, generation, resume_at }
    }

    /// Whether the client has been disconnected long enough to resume its session elsewhere.
    fn resume_due(&self) -> bool {
        let resume_at = *self.resume_at.lock().unwrap_or_else(|e| e.into_inner());
        resume_at.is_some_and(|at| at <= Instant::now())
    }

    /// Leaves [`RESUME_AFTER`] before the next attempt to resume.
    fn postpone_resume(&self) {
        let mut resume_at = self.resume_at.lock().unwrap_or_else(|e| e.into_inner());
        if resume_at.is_some() {
            *resume_at = Some(Instant::now() + RESUME_AFTER);
        }
    }
}

/// Opens a new session, trying each member once.
async fn connect(target: &Target) -> Result<Client> {
    let client = dial(target, None).await.map_err(|err| {
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

/// Connects a detached client to a new session, or to `session`, trying each member once.
async fn dial(target: &Target, session: Option<SessionInfo>) -> Result<Client, ZkError> {
    let mut connector = Client::connector()
        .with_session_timeout(target.session_timeout)
        .with_connection_timeout(CONNECTION_TIMEOUT.min(target.session_timeout * 2 / 5))
        .with_fail_eagerly()
        .with_detached();
    if let Some(digest) = &target.digest {
        connector = connector.with_auth("digest", digest.as_bytes());
    }
    if let Some(session) = session {
        connector = connector.with_session(session);
    }
    connector.connect(&target.connect_string()).await
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
