//! The Consul lease store: connecting, and the [`LeaseStore`] operations.

use std::sync::Arc;

use async_trait::async_trait;
use baton_core::echo::quoted;
use baton_core::{
    AcquireOutcome, AcquireParams, Capabilities, Error, ErrorKind, ForceReleaseParams,
    HistoryParams, LeaderChange, Lease, LeaseChanges, LeaseName, LeaseStore, Page, ReleaseParams,
    RenewAllOutcome, RenewAllParams, RenewParams, Result, StoreTime,
};

use crate::changes::Feed;
use crate::client::Consul;
use crate::terms::Terms;
use crate::{acquire, keys, reads, term, url};

/// The environment variable holding the ACL token, as for Consul's own command line.
pub const TOKEN_VARIABLE: &str = "CONSUL_HTTP_TOKEN";

/// Leases kept as Consul KV keys locked by one session per term: Consul judges expiry (the
/// session's TTL), the key's `ModifyIndex` after the acquiring write is the fencing token, and a
/// blocking query wakes waiters.
///
/// Cheap to clone: clones share the client and the terms this process holds. See the
/// [crate documentation](crate) for what Consul guarantees and what it cannot.
#[derive(Clone)]
pub struct ConsulLeaseStore {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) consul: Arc<Consul>,
    pub(crate) terms: Terms,
    feed: Feed,
}

impl std::fmt::Debug for ConsulLeaseStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConsulLeaseStore")
            .field("agent", &self.inner.consul.address())
            .field("prefix", &self.inner.consul.target.prefix)
            .finish_non_exhaustive()
    }
}

impl ConsulLeaseStore {
    /// Connects to `consul://HOST:PORT[?prefix=PATH&lock_delay=DURATION&timeout=DURATION]`
    /// with the ACL token in `CONSUL_HTTP_TOKEN`, if set.
    ///
    /// Fails with one line if the URL is malformed, the agent cannot be reached, the server is
    /// not a Consul agent, the cluster has no leader, or the token may not read the prefix.
    /// Writes nothing.
    pub async fn connect(url: &str) -> Result<ConsulLeaseStore> {
        let token = std::env::var(TOKEN_VARIABLE).ok().filter(|token| !token.is_empty());
        ConsulLeaseStore::connect_with_token(url, token).await
    }

    /// Connects as [`connect`](Self::connect) does, with `token` as the ACL token instead of
    /// the environment's.
    pub async fn connect_with_token(url: &str, token: Option<String>) -> Result<ConsulLeaseStore> {
        let target = url::parse(url)?;
        let consul = Arc::new(Consul::new(target, token));
        probe(&consul).await?;
        tracing::info!(agent = %consul.address(), prefix = %consul.target.prefix, "leases are Consul sessions");
        let inner = Inner { consul, terms: Terms::default(), feed: Feed::default() };
        Ok(ConsulLeaseStore { inner: Arc::new(inner) })
    }

    /// The key prefix of the leases.
    pub fn prefix(&self) -> &str {
        &self.inner.consul.target.prefix
    }
}

/// Checks that the agent is Consul with a leader, and that the token may read the prefix.
async fn probe(consul: &Consul) -> Result<()> {
    let answer = consul.leader().await?;
    let leader: Option<String> = match answer.status {
        200 => serde_json::from_slice(&answer.body).ok(),
        _ => None,
    };
    match leader {
        None => {
            let body = String::from_utf8_lossy(&answer.body);
            let excerpt: String = body.trim().chars().take(80).collect();
            return Err(Error::invalid_input(format!(
                "the server at {} is not a Consul agent: it answered GET /v1/status/leader with \
                 HTTP {} {}",
                consul.address(),
                answer.status,
                quoted(&excerpt)
            )));
        }
        Some(leader) if leader.is_empty() => {
            return Err(Error::new(
                ErrorKind::Unavailable,
                format!("the Consul agent at {} knows no cluster leader", consul.address()),
            ));
        }
        Some(_) => {}
    }
    consul.read_prefix(&keys::folder(&consul.target.prefix), None).await?;
    Ok(())
}

#[async_trait]
impl LeaseStore for ConsulLeaseStore {
    async fn acquire(&self, params: AcquireParams) -> Result<AcquireOutcome> {
        acquire::acquire(&self.inner, params).await
    }

    async fn renew(&self, params: RenewParams) -> Result<Lease> {
        term::renew(&self.inner, params).await
    }

    async fn renew_all(&self, params: RenewAllParams) -> Result<RenewAllOutcome> {
        term::renew_all(&self.inner, params).await
    }

    async fn release(&self, params: ReleaseParams) -> Result<bool> {
        term::release(&self.inner, params).await
    }

    async fn force_release(&self, params: ForceReleaseParams) -> Result<Option<Lease>> {
        term::force_release(&self.inner, params).await
    }

    async fn get(&self, name: &LeaseName) -> Result<Option<Lease>> {
        reads::get(&self.inner, name).await
    }

    async fn list(&self) -> Result<Vec<Lease>> {
        reads::list(&self.inner).await
    }

    async fn history(&self, params: HistoryParams) -> Result<Page<LeaderChange>> {
        reads::history(&self.inner, params).await
    }

    /// The agent's clock: the `Date` of its answer to a cheap request (second resolution).
    async fn now(&self) -> Result<StoreTime> {
        self.inner.consul.now().await
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::default().with_change_notification(true).with_ttls(acquire::SESSION_TTLS)
    }

    async fn subscribe(&self) -> Result<Option<Box<dyn LeaseChanges>>> {
        Ok(Some(self.inner.feed.subscribe(&self.inner.consul).await?))
    }
}
