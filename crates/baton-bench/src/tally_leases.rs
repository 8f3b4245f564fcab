//! A `LeaseStore` that passes every call through, tallied by kind (see `tally`): what a
//! scheduler node's elector costs the store.

use std::sync::Arc;

use async_trait::async_trait;
use baton::core::{
    AcquireOutcome, AcquireParams, Capabilities, ForceReleaseParams, LeaseChanges, ReleaseParams,
    RenewAllOutcome, RenewAllParams, RenewParams,
};
use baton::{HistoryParams, LeaderChange, Lease, LeaseName, LeaseStore, Page, Result, StoreTime};

use crate::tally::tallied;

/// A lease store whose calls are tallied.
pub(crate) struct TalliedLeases {
    inner: Arc<dyn LeaseStore>,
}

impl TalliedLeases {
    /// Wraps `inner`.
    pub(crate) fn wrap(inner: Arc<dyn LeaseStore>) -> Arc<dyn LeaseStore> {
        Arc::new(TalliedLeases { inner })
    }
}

#[async_trait]
impl LeaseStore for TalliedLeases {
    async fn acquire(&self, params: AcquireParams) -> Result<AcquireOutcome> {
        tallied!("lease_acquire", self.inner.acquire(params))
    }

    async fn renew(&self, params: RenewParams) -> Result<Lease> {
        tallied!("lease_renew", self.inner.renew(params))
    }

    async fn renew_all(&self, params: RenewAllParams) -> Result<RenewAllOutcome> {
        tallied!("lease_renew_all", self.inner.renew_all(params))
    }

    async fn release(&self, params: ReleaseParams) -> Result<bool> {
        tallied!("lease_release", self.inner.release(params))
    }

    async fn force_release(&self, params: ForceReleaseParams) -> Result<Option<Lease>> {
        tallied!("lease_force_release", self.inner.force_release(params))
    }

    async fn get(&self, name: &LeaseName) -> Result<Option<Lease>> {
        tallied!("lease_get", self.inner.get(name))
    }

    async fn list(&self) -> Result<Vec<Lease>> {
        tallied!("lease_list", self.inner.list())
    }

    async fn history(&self, params: HistoryParams) -> Result<Page<LeaderChange>> {
        tallied!("lease_history", self.inner.history(params))
    }

    async fn now(&self) -> Result<StoreTime> {
        tallied!("lease_store_now", self.inner.now())
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    async fn subscribe(&self) -> Result<Option<Box<dyn LeaseChanges>>> {
        tallied!("lease_subscribe", self.inner.subscribe())
    }
}
