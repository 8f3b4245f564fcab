//! The ETL over three in-process nodes on one store, one of them stopped mid-way the way a
//! crash stops it: its partitions resume on the others from their checkpoints, and the output
//! is byte-identical to a single-node run and to a plain pass.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU32, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use baton::cluster::{BatchState, Cluster, ClusterConfig, ClusterStore, NodeId, PartitionState};
use baton::core::cluster::*;
use baton::core::schedule::JobName;
use baton::core::{Page, Result};
use baton::{ElectorConfig, HolderId, LeaseStore, StoreTime};
use partitioned_etl::{Checkpoint, Etl, claim_file, collect, finished, generate, partitions};
use partitioned_etl::{plain, sha256};
use tokio::sync::Notify;
use tokio::time::timeout;

/// Rows of the input: six partitions of about 5,000 lines, ten commit intervals each.
const ROWS: u64 = 30_000;
/// How long the test waits for any one signal.
const PATIENCE: Duration = Duration::from_secs(60);
/// Checkpoints the stopped node saves before its next one hangs.
const SAVED: u32 = 2;

/// A node's view of the shared store in which checkpoints after the first [`SAVED`] never
/// return, so that the node is caught mid-way: some checkpoints saved, output written past
/// them.
struct Stalling {
    inner: Arc<dyn ClusterStore>,
    checkpoints: AtomicU32,
    /// The partition whose checkpoint hangs.
    partition: AtomicI64,
    stalled: Notify,
}

#[async_trait]
impl ClusterStore for Stalling {
    async fn partition_checkpoint(&self, params: PartitionCheckpointParams) -> Result<Partition> {
        if self.checkpoints.fetch_add(1, Ordering::SeqCst) >= SAVED {
            self.partition.store(params.id, Ordering::SeqCst);
            self.stalled.notify_one();
            std::future::pending::<()>().await;
        }
        self.inner.partition_checkpoint(params).await
    }
    async fn node_register(&self, params: NodeRegisterParams) -> Result<Node> {
        self.inner.node_register(params).await
    }
    async fn node_heartbeat(&self, params: NodeHeartbeatParams) -> Result<NodeHeartbeatOutcome> {
        self.inner.node_heartbeat(params).await
    }
    async fn node_leave(&self, params: NodeLeaveParams) -> Result<Node> {
        self.inner.node_leave(params).await
    }
    async fn node_list(&self, params: NodeListParams) -> Result<Page<Node>> {
        self.inner.node_list(params).await
    }
    async fn node_sweep(&self, params: NodeSweepParams) -> Result<Swept> {
        self.inner.node_sweep(params).await
    }
    async fn node_changes(&self, params: NodeChangesParams) -> Result<Page<NodeChange>> {
        self.inner.node_changes(params).await
    }
    async fn batch_create(&self, params: BatchCreateParams) -> Result<BatchJob> {
        self.inner.batch_create(params).await
    }
    async fn batch_get(&self, id: i64) -> Result<Option<BatchJob>> {
        self.inner.batch_get(id).await
    }
    async fn batch_list(&self, params: BatchListParams) -> Result<Page<BatchJob>> {
        self.inner.batch_list(params).await
    }
    async fn batch_finish(&self, id: i64) -> Result<BatchJob> {
        self.inner.batch_finish(id).await
    }
    async fn partition_list(&self, params: PartitionListParams) -> Result<Page<Partition>> {
        self.inner.partition_list(params).await
    }
    async fn partition_claim(&self, params: PartitionClaimParams) -> Result<Vec<Partition>> {
        self.inner.partition_claim(params).await
    }
    async fn partition_complete(&self, params: PartitionCompleteParams) -> Result<Partition> {
        self.inner.partition_complete(params).await
    }
    async fn partition_fail(&self, params: PartitionFailParams) -> Result<Partition> {
        self.inner.partition_fail(params).await
    }
    async fn partition_reassign(&self, params: PartitionReassignParams) -> Result<Reassigned> {
        self.inner.partition_reassign(params).await
    }
    async fn partition_move(&self, params: PartitionMoveParams) -> Result<Vec<Partition>> {
        self.inner.partition_move(params).await
    }
    async fn partition_moves(&self, params: PartitionMovesParams) -> Result<Page<PartitionMove>> {
        self.inner.partition_moves(params).await
    }
    async fn subscribe_pending(&self) -> Result<Option<Box<dyn PendingChanges>>> {
        self.inner.subscribe_pending().await
    }
    async fn now(&self) -> Result<StoreTime> {
        self.inner.now().await
    }
}

fn job() -> JobName {
    JobName::new("etl").unwrap()
}

fn etl(dir: &Path, out: &str) -> Etl {
    Etl { input: dir.join("input.csv"), out: dir.join(out), partitions: 6, commit_interval: 500 }
}

/// Starts node `index` with fast timing: unreachable after 100 ms of silence.
async fn start(
    leases: &Arc<dyn LeaseStore>,
    store: Arc<dyn ClusterStore>,
    index: u32,
    etl: &Etl,
) -> Cluster {
    let id = format!("etl-node-{index}");
    let mut config = ClusterConfig::new(NodeId::new(&id).unwrap(), "test-host");
    config.heartbeat_interval = Duration::from_millis(20);
    config.unreachable_after = Duration::from_millis(100);
    config.removed_after = Duration::from_secs(60);
    config.elector = ElectorConfig::new(HolderId::new(&id).unwrap());
    let builder = Cluster::builder(leases.clone(), store).config(config);
    builder.partitioned(etl.job(job())).start().await.expect("the node starts")
}

/// Waits until `node` leads the cluster.
async fn leads(node: &Cluster) {
    let mut leadership = node.leadership();
    let led = leadership.wait_for(|leadership| leadership.token().is_some());
    timeout(PATIENCE, led).await.expect("the node leads in time").unwrap();
}

/// Runs a batch to its end and answers the SHA-256 of its output.
async fn run_to_end(store: &dyn ClusterStore, etl: &Etl, batch: i64) -> String {
    let batch_job = timeout(PATIENCE, finished(store, batch, Duration::from_millis(20)))
        .await
        .expect("the batch finishes in time")
        .unwrap();
    assert_eq!(batch_job.state, BatchState::Succeeded, "{:?}", batch_job.failure);
    collect(store, etl, batch).await.unwrap().sha256().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_stopped_mid_way_changes_no_byte_of_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input.csv");
    generate(&input, ROWS).unwrap();
    let reference = dir.path().join("plain.csv");
    plain(&input, &reference).unwrap();
    let expected = sha256(&[reference]).unwrap();

    let single = etl(dir.path(), "single");
    let backend = baton::connect("memory://").await.unwrap();
    let node = start(&backend.leases(), backend.cluster(), 0, &single).await;
    leads(&node).await;
    let batch = node.run(&job()).await.unwrap();
    assert_eq!(run_to_end(&*backend.cluster(), &single, batch).await, expected);
    node.shutdown().await;

    let three = etl(dir.path(), "three");
    let backend = baton::connect("memory://").await.unwrap();
    let (leases, store) = (backend.leases(), backend.cluster());
    let leader = start(&leases, store.clone(), 0, &three).await;
    leads(&leader).await;
    let other = start(&leases, store.clone(), 1, &three).await;
    let stalling = Arc::new(Stalling {
        inner: store.clone(),
        checkpoints: AtomicU32::new(0),
        partition: AtomicI64::new(0),
        stalled: Notify::new(),
    });
    let victim = start(&leases, stalling.clone(), 2, &three).await;
    let batch = leader.run(&job()).await.unwrap();
    timeout(PATIENCE, stalling.stalled.notified()).await.expect("the victim gets mid-way");

    let before = partitions(&*store, batch).await.unwrap();
    let on_victim: Vec<&Partition> = before
        .iter()
        .filter(|p| p.node.as_ref().is_some_and(|node| node.as_str() == "etl-node-2"))
        .collect();
    assert_eq!(on_victim.len(), 2, "round-robin gives the victim two of six partitions");
    assert!(on_victim.iter().all(|p| p.state == PartitionState::Claimed));
    assert!(on_victim.iter().any(|p| p.checkpoint.is_some()), "a checkpoint was saved");
    let stalled = stalling.partition.load(Ordering::SeqCst);
    let stalled = on_victim.iter().find(|p| p.id == stalled).expect("the stalled partition");
    let saved = Checkpoint::of(stalled).unwrap().map_or(0, |checkpoint| checkpoint.at.bytes);
    let file =
        claim_file(&three.batch_dir(batch), stalled.key.as_str(), stalled.token.unwrap().get());
    let written = std::fs::metadata(&file).unwrap().len();
    assert!(written > saved, "the stopped claim wrote {written} bytes, past the {saved} saved");

    drop(victim);
    assert_eq!(run_to_end(&*store, &three, batch).await, expected);
    let after = partitions(&*store, batch).await.unwrap();
    for moved in after.iter().filter(|p| on_victim.iter().any(|v| v.id == p.id)) {
        assert_eq!(moved.attempts, 2, "{} was claimed again", moved.key);
        assert_ne!(moved.node.as_ref().unwrap().as_str(), "etl-node-2");
    }
    leader.shutdown().await;
    other.shutdown().await;
}
