//! The etcd `LeaseStore`.

use async_trait::async_trait;
use baton_core::{
    AcquireOutcome, AcquireParams, Capabilities, Error, ForceReleaseParams, HistoryParams,
    LeaderChange, Lease, LeaseChanges, LeaseName, LeaseStore, Page, ReleaseParams, RenewAllOutcome,
    RenewAllParams, RenewParams, Result, StoreTime,
};

use crate::record::now_ms;
use crate::store::EtcdLeaseStore;
use crate::{acquire, changes, history, reads, release, renew, sessions};

#[async_trait]
impl LeaseStore for EtcdLeaseStore {
    async fn acquire(&self, params: AcquireParams) -> Result<AcquireOutcome> {
        acquire::acquire(&self.inner, params).await
    }

    async fn renew(&self, params: RenewParams) -> Result<Lease> {
        let leases = [(params.name.clone(), params.token)];
        let renewed = renew::renew(&self.inner, &params.holder, &leases).await?;
        renewed.into_iter().flatten().next().ok_or_else(|| {
            Error::lease_lost(format!(
                "lease {} is no longer held by {} under token {}",
                params.name, params.holder, params.token
            ))
        })
    }

    async fn renew_all(&self, params: RenewAllParams) -> Result<RenewAllOutcome> {
        if params.leases.is_empty() {
            return Ok(RenewAllOutcome::default());
        }
        let renewed = renew::renew(&self.inner, &params.holder, &params.leases).await?;
        let mut outcome = RenewAllOutcome::default();
        for ((name, _), lease) in params.leases.into_iter().zip(renewed) {
            match lease {
                Some(lease) => outcome.renewed.push(lease),
                None => outcome.lost.push(name),
            }
        }
        Ok(outcome)
    }

    async fn release(&self, params: ReleaseParams) -> Result<bool> {
        release::release(&self.inner, &params).await
    }

    async fn force_release(&self, params: ForceReleaseParams) -> Result<Option<Lease>> {
        release::force(&self.inner, &params.name).await
    }

    async fn get(&self, name: &LeaseName) -> Result<Option<Lease>> {
        self.inner.read_state(name).await?.lease(name)
    }

    async fn list(&self) -> Result<Vec<Lease>> {
        reads::list(&self.inner).await
    }

    async fn history(&self, params: HistoryParams) -> Result<Page<LeaderChange>> {
        history::read(&self.inner, params).await
    }

    /// This machine's clock: etcd has none a client can read (see the crate documentation).
    async fn now(&self) -> Result<StoreTime> {
        Ok(StoreTime::from_millis(now_ms()))
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::default().with_change_notification(true).with_ttls(sessions::TTLS)
    }

    async fn subscribe(&self) -> Result<Option<Box<dyn LeaseChanges>>> {
        changes::subscribe(&self.inner).await.map(Some)
    }
}
