//! State shared by an elector, its guards and its background tasks.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use baton_core::{LeaseName, LeaseStore, ReleaseParams, Result};
use tokio::sync::{Notify, broadcast};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::config::ElectorConfig;
use super::term::Term;
use super::watchdog::Watchdog;

pub(crate) struct Shared {
    pub(crate) store: Arc<dyn LeaseStore>,
    pub(crate) config: ElectorConfig,
    /// The terms this process currently holds, by lease.
    held: Mutex<HashMap<LeaseName, Arc<Term>>>,
    /// Wakes the renewer when the set of held terms changes.
    pub(crate) held_changed: Notify,
    pub(crate) watchdog: Watchdog,
    /// Names of leases the store reported released, fed by the wake-up listener; `None` each
    /// time its feed is (re)subscribed, since a release before that went unseen.
    pub(crate) released: broadcast::Sender<Option<LeaseName>>,
    pub(crate) listener_started: OnceLock<()>,
    /// Cancelled on shutdown; every background task stops with it.
    pub(crate) shutdown: CancellationToken,
    pub(crate) tasks: TaskTracker,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").field("holder", &self.config.holder).finish_non_exhaustive()
    }
}

impl Shared {
    pub(crate) fn new(store: Arc<dyn LeaseStore>, config: ElectorConfig) -> Self {
        Shared {
            watchdog: Watchdog::new(config.stall_threshold),
            store,
            config,
            held: Mutex::default(),
            held_changed: Notify::new(),
            released: broadcast::channel(256).0,
            listener_started: OnceLock::new(),
            shutdown: CancellationToken::new(),
            tasks: TaskTracker::new(),
        }
    }

    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<LeaseName, Arc<Term>>> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn insert(&self, term: Arc<Term>) {
        self.held().insert(term.lease.clone(), term);
        self.held_changed.notify_one();
    }

    /// Every term held right now.
    pub(crate) fn terms(&self) -> Vec<Arc<Term>> {
        self.held().values().cloned().collect()
    }

    /// Ends a term and forgets it, without touching the store.
    pub(crate) fn end(&self, term: &Term, reason: &str) {
        term.end(reason);
        let mut held = self.held();
        if held.get(&term.lease).is_some_and(|current| current.token == term.token) {
            held.remove(&term.lease);
        }
    }

    /// Ends a term and releases its lease in the store so the next contender can start at
    /// once. Work bound to the term is cancelled before the release is sent.
    pub(crate) async fn step_down(&self, term: &Term, reason: &str) -> Result<bool> {
        self.end(term, reason);
        let params = ReleaseParams {
            name: term.lease.clone(),
            holder: self.config.holder.clone(),
            token: term.token,
        };
        match tokio::time::timeout(self.config.renew_deadline, self.store.release(params)).await {
            Ok(outcome) => outcome,
            Err(_) => Err(baton_core::Error::new(
                baton_core::ErrorKind::Timeout,
                format!("releasing lease {} timed out; it will expire by its TTL", term.lease),
            )),
        }
    }

    /// [`Shared::step_down`] from synchronous code (a drop), on the current runtime if any.
    pub(crate) fn step_down_in_background(self: &Arc<Self>, term: Arc<Term>, reason: &'static str) {
        self.end(&term, reason);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let shared = self.clone();
            runtime.spawn(self.tasks.track_future(async move {
                if let Err(err) = shared.step_down(&term, reason).await {
                    tracing::warn!(lease = %term.lease, %err, "release after drop failed");
                }
            }));
        }
    }
}
