//! The partitioned-job scenario: every node runs the cluster with one partitioned job, a batch
//! of it is started now and then, and each partition's handler checks its claim and writes to
//! the partition's fenced resource in a few steps.

use std::sync::Arc;
use std::time::Duration;

use baton_core::cluster::{ClusterStore, JsonText, NodeId, PartitionKey, PartitionSpec};
use baton_core::layer::Layered;
use baton_core::{HolderId, JobName, LeaseStore, Result};

use super::net::Link;
use super::world::{Incarnation, NodeRef, World};
use crate::ElectorConfig;
use crate::cluster::{Cluster, ClusterConfig, PartitionContext, PartitionHandler, PartitionedJob};

/// The TTL of the cluster's leader lease; the elector's timing is scaled from it.
const TTL: Duration = Duration::from_secs(3);
/// The partitioned job.
const JOB: &str = "rows";
/// Partitions per batch.
const PARTITIONS: usize = 12;

/// The fenced resource of partition `key` of `batch`.
pub(super) fn resource(batch: i64, key: &str) -> String {
    format!("batch {batch} {key}")
}

/// A node of the cluster.
pub(super) struct Member {
    cluster: Arc<Cluster>,
}

impl Incarnation for Member {
    const CONTINUOUS: bool = false;

    async fn start(world: &Arc<World>, node: NodeRef, link: &Link) -> Self {
        let leases: Arc<dyn LeaseStore> = world.leases.clone();
        let store: Arc<dyn ClusterStore> = world.cluster.clone();
        let leases = Arc::new(Layered::new(leases, link.clone()));
        let store = Arc::new(Layered::new(store, link.clone()));
        let id = NodeId::new(node.name.clone()).expect("a node id");
        let mut config = ClusterConfig::new(id, "simulated");
        config.heartbeat_interval = Duration::from_millis(150);
        config.unreachable_after = Duration::from_secs(3);
        config.removed_after = Duration::from_secs(120);
        config.shutdown_grace = Duration::from_millis(500);
        let holder = HolderId::new(node.name.clone()).expect("a holder id");
        config.elector = ElectorConfig::new(holder).with_ttl(TTL);
        let job = PartitionedJob::new(job(), partitions, handler(world.clone(), node));
        let cluster = Cluster::builder(leases, store).config(config).partitioned(job);
        let cluster = cluster.start().await.expect("the node starts on a healthy link");
        Member { cluster: Arc::new(cluster) }
    }

    fn poke(&self) {
        let cluster = self.cluster.clone();
        tokio::spawn(async move { cluster.run(&job()).await });
    }

    fn step_down(&self) {
        let cluster = self.cluster.clone();
        tokio::spawn(async move { cluster.step_down().await });
    }

    fn crash(self) {}

    async fn stop(self) {
        self.cluster.shutdown().await;
    }
}

fn job() -> JobName {
    JOB.parse().expect("a job name")
}

/// Splits a batch into [`PARTITIONS`] partitions `p0`, `p1`, …
async fn partitions(_live: usize) -> Result<Vec<PartitionSpec>> {
    (0..PARTITIONS)
        .map(|i| Ok(PartitionSpec::new(PartitionKey::new(format!("p{i}"))?, JsonText::new("{}")?)))
        .collect()
}

/// A handler doing the [work](World::work) of a partition.
fn handler(world: Arc<World>, node: NodeRef) -> impl PartitionHandler {
    move |ctx: PartitionContext| {
        let (world, node) = (world.clone(), node.clone());
        async move {
            let key = resource(ctx.batch(), ctx.key().as_str());
            world.work(&node, &key, ctx.token().get(), || ctx.ensure_valid()).await
        }
    }
}
