//! State shared by an elector, its guards and its background tasks.

use std::sync::{Arc, OnceLock};

use baton_core::layer::Layered;
use baton_core::{LeaseName, LeaseStore, ReleaseParams, Result};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::config::ElectorConfig;
use crate::claim::{Claim, Claims, TimeLimit};
use crate::planted::{Bug, planted};

pub(crate) struct Shared {
    /// The store, every call bounded by the renew deadline.
    pub(crate) store: Arc<dyn LeaseStore>,
    pub(crate) config: ElectorConfig,
    /// The terms this process holds, by lease: each a claim that may act until the send time
    /// of its last confirmed acquire or renew plus the renew deadline.
    pub(crate) terms: Claims<LeaseName>,
    /// Names of leases the store reported released, fed by the wake-up listener; `None` each
    /// time its feed is (re)subscribed, since a release before that went unseen.
    pub(crate) released: broadcast::Sender<Option<LeaseName>>,
    pub(crate) listener_started: OnceLock<()>,
    /// Cancelled on shutdown or when the last elector is dropped; every term and every
    /// background task stops with it.
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
        let shutdown = CancellationToken::new();
        Shared {
            store: Arc::new(Layered::new(store, TimeLimit(config.renew_deadline))),
            terms: Claims::new(config.renew_deadline, config.stall_threshold, shutdown.clone()),
            config,
            released: broadcast::channel(256).0,
            listener_started: OnceLock::new(),
            shutdown,
            tasks: TaskTracker::new(),
        }
    }

    /// Ends a term and releases its lease in the store so the next contender can start at
    /// once. Work bound to the term is cancelled before the release is sent.
    pub(crate) async fn step_down(
        &self,
        lease: &LeaseName,
        term: &Claim,
        reason: &str,
    ) -> Result<bool> {
        let params = ReleaseParams {
            name: lease.clone(),
            holder: self.config.holder.clone(),
            token: term.token(),
        };
        if planted(Bug::ActAfterRelease) {
            let released = self.store.release(params).await;
            self.terms.end(lease, term, reason);
            return released;
        }
        self.terms.end(lease, term, reason);
        self.store.release(params).await
    }

    /// [`Shared::step_down`] from synchronous code (a drop, the enforcer), on the current
    /// runtime if any; a release that fails leaves the lease to expire by its TTL.
    pub(crate) fn step_down_in_background(
        self: &Arc<Self>,
        lease: LeaseName,
        term: Arc<Claim>,
        reason: &'static str,
    ) {
        self.terms.end(&lease, &term, reason);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let shared = self.clone();
            runtime.spawn(self.tasks.track_future(async move {
                if let Err(err) = shared.step_down(&lease, &term, reason).await {
                    tracing::warn!(%lease, %err, "release failed; the lease expires by its TTL");
                }
            }));
        }
    }
}
