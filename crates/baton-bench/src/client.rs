//! A lease client of the benchmarks: its own lease store (so its own connections, as a
//! separate process would have) and its own holder id.

use std::sync::Arc;
use std::time::Duration;

use baton::core::{AcquireOutcome, AcquireParams, ReleaseParams, RenewParams};
use baton::{FencingToken, HolderId, LeaseName, LeaseStore};

/// The TTL of the leases these runs take where the store grants it: the default of the design.
pub(crate) const TTL: Duration = Duration::from_secs(10);

/// One client: its own lease store, connections and holder id.
pub(crate) struct Client {
    store: Arc<dyn LeaseStore>,
    pub(crate) holder: HolderId,
    /// [`TTL`], or the store's granted TTL nearest to it.
    ttl: Duration,
}

impl Client {
    /// Opens a lease store of its own at `url`.
    pub(crate) async fn connect(url: &str) -> anyhow::Result<Self> {
        let store = baton::connect_leases(url).await?;
        let ttl = store.capabilities().ttls.nearest(TTL);
        Ok(Client { store, holder: HolderId::generate("bench", fastrand::u32(..)), ttl })
    }

    /// One acquisition attempt.
    pub(crate) async fn acquire(&self, name: &LeaseName) -> baton::Result<AcquireOutcome> {
        let params =
            AcquireParams { name: name.clone(), holder: self.holder.clone(), ttl: self.ttl };
        self.store.acquire(params).await
    }

    /// Acquires a lease that must be free, and returns its token.
    pub(crate) async fn acquire_free(&self, name: &LeaseName) -> anyhow::Result<FencingToken> {
        match self.acquire(name).await? {
            AcquireOutcome::Acquired { lease, .. } => Ok(lease.token),
            AcquireOutcome::Held(lease) => anyhow::bail!(
                "lease {name} was expected free but is held by {}",
                lease.holder.map(|h| h.to_string()).unwrap_or_default()
            ),
            _ => anyhow::bail!("unexpected outcome acquiring {name}"),
        }
    }

    /// Renews a lease it holds.
    pub(crate) async fn renew(&self, name: &LeaseName, token: FencingToken) -> anyhow::Result<()> {
        let params = RenewParams { name: name.clone(), holder: self.holder.clone(), token };
        self.store.renew(params).await?;
        Ok(())
    }

    /// Releases a lease it holds; fails if the store no longer saw it as the holder.
    pub(crate) async fn release(
        &self,
        name: &LeaseName,
        token: FencingToken,
    ) -> anyhow::Result<()> {
        let params = ReleaseParams { name: name.clone(), holder: self.holder.clone(), token };
        anyhow::ensure!(
            self.store.release(params).await?,
            "lease {name} was no longer held at release"
        );
        Ok(())
    }
}

/// Connects `count` clients.
pub(crate) async fn connect_all(url: &str, count: usize) -> anyhow::Result<Vec<Client>> {
    let mut clients = Vec::with_capacity(count);
    for _ in 0..count {
        clients.push(Client::connect(url).await?);
    }
    Ok(clients)
}
