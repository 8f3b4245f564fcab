//! The cluster leader's timing at the default cluster timing, on tokio's paused clock (the
//! in-memory stores follow it): a crashed node's partition runs elsewhere just after the
//! node's last heartbeat turns stale (the leader sweeps then, and the survivors claim when
//! woken, not at their next poll), while an idle leader sweeps no more often than once per
//! heartbeat interval.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use baton::StoreTime;
use baton::cluster::{
    BatchJob, BatchState, Cluster, NodeId, Partition, PartitionContext, PartitionedJob,
};
use baton::core::cluster::*;
use baton::core::{ClusterStore, Page, Result};
use tokio::sync::mpsc;
use tokio::time::timeout;

#[path = "common/paused.rs"]
mod paused;
use paused::{config, report, specs, start, stores};

/// How long, in virtual time, the test waits for any one signal.
const PATIENCE: Duration = Duration::from_secs(120);

/// A store that counts the sweeps made through it.
struct CountingSweeps {
    inner: Arc<dyn ClusterStore>,
    sweeps: AtomicU64,
}

#[async_trait]
impl ClusterStore for CountingSweeps {
    async fn node_sweep(&self, params: NodeSweepParams) -> Result<Swept> {
        self.sweeps.fetch_add(1, Ordering::SeqCst);
        self.inner.node_sweep(params).await
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
    async fn partition_checkpoint(&self, params: PartitionCheckpointParams) -> Result<Partition> {
        self.inner.partition_checkpoint(params).await
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

/// Waits until `node` leads the cluster.
async fn leads(node: &Cluster) {
    timeout(PATIENCE, node.leadership().wait_for(|l| l.token().is_some()))
        .await
        .expect("the node leads")
        .unwrap();
}

/// The job `rows`: one partition per live node; the node `victim` holds its partition until
/// told to stop, and every other run completes at once, reporting where it ran.
fn rows(
    victim: &'static str,
    node: &'static str,
    started: mpsc::UnboundedSender<String>,
    finished: mpsc::UnboundedSender<BatchJob>,
) -> PartitionedJob {
    let partitioner = |live: usize| async move { specs(live) };
    let handler = move |ctx: PartitionContext| {
        let started = started.clone();
        async move {
            let _ = started.send(format!("{} on {node}", ctx.key()));
            if node == victim {
                ctx.cancelled().await;
                return Err("stopped".to_string());
            }
            Ok(())
        }
    };
    PartitionedJob::new("rows".parse().unwrap(), partitioner, handler).on_success(report(finished))
}

async fn next<T>(receiver: &mut mpsc::UnboundedReceiver<T>, what: &str) -> T {
    timeout(PATIENCE, receiver.recv())
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
        .unwrap_or_else(|| panic!("no more senders while waiting for {what}"))
}

#[tokio::test(start_paused = true)]
async fn a_crashed_nodes_partition_runs_elsewhere_just_after_its_heartbeat_goes_stale() {
    let (leases, store) = stores();
    let (started, mut starts) = mpsc::unbounded_channel();
    let (finished, mut finishes) = mpsc::unbounded_channel();
    let job = |node| rows("node-a", node, started.clone(), finished.clone());
    // node-b starts first and leads; node-a is the victim.
    let b = start(&leases, &store, config("node-b"), job("node-b")).await;
    leads(&b).await;
    let a = start(&leases, &store, config("node-a"), job("node-a")).await;
    let c = start(&leases, &store, config("node-c"), job("node-c")).await;
    let batch = c.run(&"rows".parse().unwrap()).await.unwrap();
    let mut ran = Vec::new();
    while !ran.iter().any(|run: &String| run.ends_with("on node-a")) {
        ran.push(next(&mut starts, "node-a to start its partition").await);
    }
    drop(a);

    let done = next(&mut finishes, "the batch to succeed").await;
    assert_eq!((done.id, done.state), (batch, BatchState::Succeeded));
    let parts = store.partition_list(PartitionListParams::new(batch)).await.unwrap().items;
    let moved = parts.iter().find(|p| p.attempts == 2).expect("node-a's partition ran again");
    assert_ne!(moved.node.as_ref().map(NodeId::as_str), Some("node-a"), "{moved:?}");
    let nodes = store.node_list(NodeListParams::default()).await.unwrap().items;
    let victim = nodes.iter().find(|n| n.id.as_str() == "node-a").unwrap();
    assert_eq!(victim.state, NodeState::Unreachable);
    let after = moved.claimed_at.unwrap().saturating_since(victim.heartbeat_at);
    let threshold = NodeThresholds::default().unreachable_after();
    assert!(
        after > threshold && after <= threshold + Duration::from_millis(50),
        "claimed elsewhere {after:?} after node-a's last heartbeat, against a {threshold:?} \
         threshold"
    );
    b.shutdown().await;
    c.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn an_idle_leader_sweeps_once_per_heartbeat_interval() {
    let (leases, memory) = stores();
    let counting = Arc::new(CountingSweeps { inner: memory, sweeps: AtomicU64::new(0) });
    let store: Arc<dyn ClusterStore> = counting.clone();
    let (started, _) = mpsc::unbounded_channel();
    let (finished, _) = mpsc::unbounded_channel();
    let job = |node| rows("none", node, started.clone(), finished.clone());
    let leader = start(&leases, &store, config("node-a"), job("node-a")).await;
    leads(&leader).await;
    let others = [
        start(&leases, &store, config("node-b"), job("node-b")).await,
        start(&leases, &store, config("node-c"), job("node-c")).await,
    ];
    let before = counting.sweeps.load(Ordering::SeqCst);
    let window = Duration::from_secs(60);
    // The paused clock jumps from timer to timer: this measures a fixed window, waiting on
    // nothing that could race.
    tokio::time::sleep(window).await;
    let sweeps = counting.sweeps.load(Ordering::SeqCst) - before;
    let interval = NodeThresholds::default().heartbeat_interval();
    // One at each tick: 30 in the window, give or take the one at either end, depending on
    // whether the leader or this test runs first at that instant.
    let ticks = window.as_secs() / interval.as_secs();
    assert!(
        (ticks - 1..=ticks + 1).contains(&sweeps),
        "{sweeps} sweeps in {window:?}, one per {interval:?} expected"
    );
    for node in others.iter().chain([&leader]) {
        node.shutdown().await;
    }
}
