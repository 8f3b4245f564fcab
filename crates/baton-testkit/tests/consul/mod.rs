//! A Consul lease store on the testkit's emulated Consul agent, shared by the Consul test files.

use std::sync::Arc;

use async_trait::async_trait;
use baton_consul::ConsulLeaseStore;
use baton_core::{LeaseName, LeaseStore};
use baton_testkit::conformance::lease::LeaseHarness;
use baton_testkit::servers::ConsulServer;
use tokio::sync::OnceCell;

/// One emulated agent per test; the store connects on first use. Fields drop in order: the
/// store first, then the server.
pub struct Consul {
    store: OnceCell<ConsulLeaseStore>,
    pub server: ConsulServer,
}

impl Consul {
    /// An emulated agent without ACLs.
    pub fn start() -> Self {
        Consul { store: OnceCell::new(), server: ConsulServer::start() }
    }

    /// The store, connected on first use.
    pub async fn store(&self) -> &ConsulLeaseStore {
        self.store
            .get_or_init(|| async {
                ConsulLeaseStore::connect_with_token(&self.server.url(), None)
                    .await
                    .expect("connect")
            })
            .await
    }
}

/// The key of lease `name` under the default prefix.
pub fn key(name: &LeaseName) -> String {
    format!("baton/leases/{name}")
}

#[async_trait]
impl LeaseHarness for Consul {
    async fn store(&self) -> Arc<dyn LeaseStore> {
        Arc::new(Consul::store(self).await.clone())
    }

    async fn delete_record(&self, name: &LeaseName) {
        assert!(self.server.delete_key(&key(name)), "lease {name} is the key {}", key(name));
    }
}
