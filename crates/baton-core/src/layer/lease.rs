//! [`LeaseStore`] through a layer.

use async_trait::async_trait;

use super::{Layer, Layered};
use crate::error::Result;
use crate::lease::{
    AcquireOutcome, AcquireParams, Capabilities, ForceReleaseParams, HistoryParams, LeaderChange,
    Lease, LeaseChanges, LeaseName, LeaseStore, ReleaseParams, RenewAllOutcome, RenewAllParams,
    RenewParams,
};
use crate::page::Page;
use crate::time::StoreTime;

#[async_trait]
impl<L: Layer> LeaseStore for Layered<dyn LeaseStore, L> {
    async fn acquire(&self, params: AcquireParams) -> Result<AcquireOutcome> {
        self.through("lease_acquire", self.inner.acquire(params)).await
    }

    async fn renew(&self, params: RenewParams) -> Result<Lease> {
        self.through("lease_renew", self.inner.renew(params)).await
    }

    async fn renew_all(&self, params: RenewAllParams) -> Result<RenewAllOutcome> {
        self.through("lease_renew_all", self.inner.renew_all(params)).await
    }

    async fn release(&self, params: ReleaseParams) -> Result<bool> {
        self.through("lease_release", self.inner.release(params)).await
    }

    async fn force_release(&self, params: ForceReleaseParams) -> Result<Option<Lease>> {
        self.through("lease_force_release", self.inner.force_release(params)).await
    }

    async fn get(&self, name: &LeaseName) -> Result<Option<Lease>> {
        self.through("lease_get", self.inner.get(name)).await
    }

    async fn list(&self) -> Result<Vec<Lease>> {
        self.through("lease_list", self.inner.list()).await
    }

    async fn history(&self, params: HistoryParams) -> Result<Page<LeaderChange>> {
        self.through("lease_history", self.inner.history(params)).await
    }

    async fn now(&self) -> Result<StoreTime> {
        self.through("lease_store_now", self.inner.now()).await
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    async fn subscribe(&self) -> Result<Option<Box<dyn LeaseChanges>>> {
        self.through("lease_subscribe", self.inner.subscribe()).await
    }
}
