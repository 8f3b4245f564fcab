//! An etcd lease store on a throwaway member, shared by the etcd test files.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use baton_core::{LeaseName, LeaseStore};
use baton_etcd::EtcdLeaseStore;
use baton_testkit::conformance::lease::LeaseHarness;
use baton_testkit::servers::EtcdServer;
use tokio::sync::OnceCell;

/// The shortest TTL the test members grant (see `baton_testkit::servers::EtcdServer`).
pub const SHORTEST_TTL: Duration = Duration::from_secs(1);

/// One member per test; the store connects on first use. Fields drop in order: the store
/// first, then the server.
pub struct Etcd {
    store: OnceCell<EtcdLeaseStore>,
    pub server: EtcdServer,
}

impl Etcd {
    /// A one-member cluster.
    pub fn start() -> Self {
        Etcd { store: OnceCell::new(), server: EtcdServer::start() }
    }

    /// The store, connected with default options on first use.
    pub async fn store(&self) -> &EtcdLeaseStore {
        self.store
            .get_or_init(|| async {
                EtcdLeaseStore::connect(&self.server.url()).await.expect("connect")
            })
            .await
    }
}

#[async_trait]
impl LeaseHarness for Etcd {
    async fn store(&self) -> Arc<dyn LeaseStore> {
        Arc::new(Etcd::store(self).await.clone())
    }

    async fn delete_record(&self, name: &LeaseName) {
        // The lease's keys but its history: its record, holder key, index key and release.
        let record = self.server.delete_key(&format!("baton/record/{name}"));
        assert!(record, "the record of {name} is where the layout says");
        for kind in ["holder", "release"] {
            self.server.delete_key(&format!("baton/{kind}/{name}"));
        }
        for key in self.server.keys("baton/held/") {
            if key.ends_with(&format!(" {name}")) {
                assert!(self.server.delete_key(&key));
            }
        }
    }
}

pub use baton_testkit::conformance::acquire_granted as acquire;
