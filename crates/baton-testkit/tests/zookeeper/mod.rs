//! ZooKeeper lease stores on throwaway servers, shared by the ZooKeeper test files.

use std::sync::Arc;

use async_trait::async_trait;
use baton_core::{LeaseName, LeaseStore};
use baton_testkit::conformance::lease::LeaseHarness;
use baton_zookeeper::ZkLeaseStore;
use tokio::sync::OnceCell;

/// A store on one server at `url`, connected on first use; every handle shares its session.
pub struct Zookeeper {
    store: OnceCell<ZkLeaseStore>,
    pub url: String,
}

impl Zookeeper {
    /// A store on the server at `url`.
    pub fn at(url: String) -> Self {
        Zookeeper { store: OnceCell::new(), url }
    }

    /// A store on the server shared by this test process.
    pub fn shared() -> Self {
        Zookeeper::at(baton_testkit::servers::ZookeeperServer::shared().url())
    }

    /// The store, connected on first use.
    pub async fn store(&self) -> &ZkLeaseStore {
        self.store
            .get_or_init(|| async { ZkLeaseStore::connect(&self.url).await.expect("connect") })
            .await
    }
}

#[async_trait]
impl LeaseHarness for Zookeeper {
    async fn store(&self) -> Arc<dyn LeaseStore> {
        Arc::new(Zookeeper::store(self).await.clone())
    }

    async fn delete_record(&self, name: &LeaseName) {
        delete_record(&self.url, name).await;
    }
}

/// Deletes a lease's record node and everything under it, as an operator would with
/// `deleteall`, through a client of its own.
pub async fn delete_record(url: &str, name: &LeaseName) {
    let hosts = url.trim_start_matches("zk://");
    let client = zookeeper_client::Client::connect(hosts).await.expect("a plain client");
    let encoded: String = name
        .as_str()
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect();
    let record = format!("/baton/leases/{encoded}");
    for child in client.list_children(&record).await.expect("the record exists") {
        client.delete(&format!("{record}/{child}"), None).await.expect("delete a child");
    }
    client.delete(&record, None).await.expect("delete the record");
}

pub use baton_testkit::conformance::acquire_granted as acquire;
