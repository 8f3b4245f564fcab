//! A Redis lease store on a throwaway server, shared by the Redis test files.

use async_trait::async_trait;
use baton_core::{Lease, LeaseName, LeaseStore};
use baton_redis::RedisLeaseStore;
use baton_testkit::conformance::lease::LeaseHarness;
use baton_testkit::servers::{RedisConfig, RedisServer};
use redis::aio::MultiplexedConnection;
use std::sync::Arc;
use tokio::sync::OnceCell;

/// One server per test; the store connects on first use. Fields drop in order: the store
/// first, then the server.
pub struct Redis {
    store: OnceCell<RedisLeaseStore>,
    pub server: RedisServer,
}

impl Redis {
    /// A server without persistence.
    pub fn start() -> Self {
        Redis::start_with(RedisConfig::default())
    }

    /// A server configured as `config` says.
    pub fn start_with(config: RedisConfig) -> Self {
        Redis { store: OnceCell::new(), server: RedisServer::start_with(config) }
    }

    /// The store, connected with default options on first use.
    pub async fn store(&self) -> &RedisLeaseStore {
        self.store
            .get_or_init(|| async {
                RedisLeaseStore::connect(&self.server.url()).await.expect("connect")
            })
            .await
    }

    /// A plain client connection, for what the store does not do (deleting keys, killing
    /// clients, reading statistics).
    pub async fn raw(&self) -> MultiplexedConnection {
        let client = redis::Client::open(self.server.url()).expect("client");
        client.get_multiplexed_async_connection().await.expect("raw connection")
    }
}

#[async_trait]
impl LeaseHarness for Redis {
    async fn store(&self) -> Arc<dyn LeaseStore> {
        Arc::new(Redis::store(self).await.clone())
    }

    async fn delete_record(&self, name: &LeaseName) {
        let deleted: i64 = redis::cmd("DEL")
            .arg(format!("baton:{{lease:{name}}}:record"))
            .query_async(&mut self.raw().await)
            .await
            .expect("delete the lease record");
        assert_eq!(deleted, 1, "the record of {name} is where the layout says");
    }
}

pub use baton_testkit::conformance::acquire_granted as acquire;

/// Waits until the store's clock has passed the lease's expiry.
pub async fn until_expired(store: &dyn LeaseStore, lease: &Lease) {
    loop {
        let now = store.now().await.expect("the store's clock");
        if now >= lease.expires_at {
            return;
        }
        tokio::time::sleep(lease.expires_at.saturating_since(now)).await;
    }
}
