//! Cluster nodes over in-memory stores on tokio's paused clock, for tests of the runtime's
//! timing.

use std::sync::Arc;

use baton::cluster::{
    BatchJob, Cluster, ClusterConfig, JsonText, NodeId, Partition, PartitionKey, PartitionSpec,
    PartitionedJob,
};
use baton::core::memory::{MemoryClusterStore, MemoryLeaseStore};
use baton::core::time::Clock;
use baton::core::{ClusterStore, Result};
use baton::{ElectorConfig, HolderId, LeaseStore, StoreTime};
use tokio::sync::mpsc;
use tokio::time::Instant;

/// Store time that follows tokio's clock, so that pausing and advancing it moves both.
struct TokioClock {
    origin: Instant,
}

impl Clock for TokioClock {
    fn now(&self) -> StoreTime {
        StoreTime::from_millis(1_800_000_000_000).saturating_add(self.origin.elapsed())
    }
}

/// In-memory lease and cluster stores on a clock that follows tokio's.
pub fn stores() -> (Arc<dyn LeaseStore>, Arc<dyn ClusterStore>) {
    let clock = Arc::new(TokioClock { origin: Instant::now() });
    let leases: Arc<dyn LeaseStore> = Arc::new(MemoryLeaseStore::with_clock(clock.clone()));
    (leases, Arc::new(MemoryClusterStore::with_clock(clock)))
}

/// The default cluster timing (a heartbeat every 2 s, unreachable after 10 s) for node `id`,
/// which also campaigns as `id`.
pub fn config(id: &str) -> ClusterConfig {
    let mut config = ClusterConfig::new(NodeId::new(id).unwrap(), "test-host");
    config.elector = ElectorConfig::new(HolderId::new(id).unwrap());
    config
}

/// Starts a node with `config` running `job`.
pub async fn start(
    leases: &Arc<dyn LeaseStore>,
    store: &Arc<dyn ClusterStore>,
    config: ClusterConfig,
    job: PartitionedJob,
) -> Cluster {
    Cluster::builder(leases.clone(), store.clone())
        .config(config)
        .partitioned(job)
        .start()
        .await
        .expect("the node starts")
}

/// `count` partitions keyed `p0`, `p1`, … with parameters `{}`.
pub fn specs(count: usize) -> Result<Vec<PartitionSpec>> {
    (0..count)
        .map(|i| Ok(PartitionSpec::new(PartitionKey::new(format!("p{i}"))?, JsonText::new("{}")?)))
        .collect()
}

/// A success callback that sends each finished batch to `finished`.
pub fn report(
    finished: mpsc::UnboundedSender<BatchJob>,
) -> impl Fn(BatchJob, Vec<Partition>) -> std::future::Ready<()> + Send + Sync + 'static {
    move |batch, _| {
        let _ = finished.send(batch);
        std::future::ready(())
    }
}
