//! A `LeaseStore` that passes every call through and reports what happened, so a scenario can
//! tell when an elector is really waiting (its attempt was refused and its release feed is
//! subscribed) and how often it calls the store.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use baton::core::{
    AcquireOutcome, AcquireParams, Capabilities, ForceReleaseParams, LeaseChanges, ReleaseParams,
    RenewAllOutcome, RenewAllParams, RenewParams,
};
use baton::{HistoryParams, LeaderChange, Lease, LeaseName, LeaseStore, Page, Result, StoreTime};
use tokio::sync::watch;

/// What a [`Probe`] has seen so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Seen {
    /// Acquisitions answered "held".
    pub(crate) refused: u64,
    /// Subscriptions to the release feed that succeeded.
    pub(crate) subscribed: u64,
    /// `renew_all` calls that returned.
    pub(crate) renewals: u64,
    /// Calls of any kind.
    pub(crate) calls: u64,
}

/// A lease store wrapped with a probe.
pub(crate) struct Probe {
    inner: Arc<dyn LeaseStore>,
    seen: watch::Sender<Seen>,
}

impl Probe {
    /// Wraps `inner`; the receiver follows what the probe sees.
    pub(crate) fn wrap(inner: Arc<dyn LeaseStore>) -> (Arc<dyn LeaseStore>, watch::Receiver<Seen>) {
        let (seen, receiver) = watch::channel(Seen::default());
        (Arc::new(Probe { inner, seen }), receiver)
    }

    fn note(&self, update: impl FnOnce(&mut Seen)) {
        self.seen.send_modify(|seen| {
            seen.calls += 1;
            update(seen);
        });
    }
}

/// Waits until `ready` holds for what the probe has seen, for at most `limit`.
pub(crate) async fn wait_until(
    seen: &mut watch::Receiver<Seen>,
    limit: Duration,
    what: &str,
    ready: impl FnMut(&Seen) -> bool,
) -> anyhow::Result<Seen> {
    match tokio::time::timeout(limit, seen.wait_for(ready)).await {
        Ok(Ok(seen)) => Ok(*seen),
        Ok(Err(_)) => anyhow::bail!("the probed store went away while waiting for {what}"),
        Err(_) => anyhow::bail!("timed out after {limit:?} waiting for {what}"),
    }
}

#[async_trait]
impl LeaseStore for Probe {
    async fn acquire(&self, params: AcquireParams) -> Result<AcquireOutcome> {
        let outcome = self.inner.acquire(params).await;
        let refused = matches!(outcome, Ok(AcquireOutcome::Held(_)));
        self.note(|seen| seen.refused += u64::from(refused));
        outcome
    }

    async fn renew(&self, params: RenewParams) -> Result<Lease> {
        let outcome = self.inner.renew(params).await;
        self.note(|_| {});
        outcome
    }

    async fn renew_all(&self, params: RenewAllParams) -> Result<RenewAllOutcome> {
        let outcome = self.inner.renew_all(params).await;
        self.note(|seen| seen.renewals += 1);
        outcome
    }

    async fn release(&self, params: ReleaseParams) -> Result<bool> {
        let outcome = self.inner.release(params).await;
        self.note(|_| {});
        outcome
    }

    async fn force_release(&self, params: ForceReleaseParams) -> Result<Option<Lease>> {
        let outcome = self.inner.force_release(params).await;
        self.note(|_| {});
        outcome
    }

    async fn get(&self, name: &LeaseName) -> Result<Option<Lease>> {
        let outcome = self.inner.get(name).await;
        self.note(|_| {});
        outcome
    }

    async fn list(&self) -> Result<Vec<Lease>> {
        let outcome = self.inner.list().await;
        self.note(|_| {});
        outcome
    }

    async fn history(&self, params: HistoryParams) -> Result<Page<LeaderChange>> {
        let outcome = self.inner.history(params).await;
        self.note(|_| {});
        outcome
    }

    async fn now(&self) -> Result<StoreTime> {
        let outcome = self.inner.now().await;
        self.note(|_| {});
        outcome
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    async fn subscribe(&self) -> Result<Option<Box<dyn LeaseChanges>>> {
        let outcome = self.inner.subscribe().await;
        let subscribed = matches!(outcome, Ok(Some(_)));
        self.note(|seen| seen.subscribed += u64::from(subscribed));
        outcome
    }
}
