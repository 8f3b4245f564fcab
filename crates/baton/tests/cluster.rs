//! The cluster runtime over the in-memory stores: a batch spread over three nodes, failover
//! of a node cut from the store, a failed partition failing its batch, and the hand-over of a
//! graceful shutdown.

mod common;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use baton::cluster::{
    BatchJob, BatchState, Cluster, ClusterConfig, ClusterStore, JsonText, NodeId, Partition,
    PartitionContext, PartitionHandler, PartitionKey, PartitionSpec, PartitionState,
    PartitionedJob,
};
use baton::core::cluster::{
    BatchListParams, Node, NodeListParams, NodeState, PartitionCheckpointParams,
    PartitionListParams,
};
use baton::core::layer::{CallFuture, Layer, Layered};
use baton::core::memory::{MemoryClusterStore, MemoryLeaseStore};
use baton::core::{Error, ErrorKind, Result};
use baton::{ElectorConfig, FencingToken, HolderId, LeaseStore};
use tokio::sync::mpsc;
use tokio::time::{Instant, timeout};

/// How long a test waits for any one signal.
const PATIENCE: Duration = Duration::from_secs(20);
/// The checkpoint every fresh partition saves first.
const CHECKPOINT: &str = r#"{"row":500}"#;

/// A switch that fails every store call while `cut` is set: one per node, over the one
/// store all nodes share.
#[derive(Default)]
struct Cuttable {
    cut: AtomicBool,
}

impl Layer for Cuttable {
    fn call<'a, T: Send + 'a>(
        &'a self,
        _op: &'static str,
        call: CallFuture<'a, T>,
    ) -> CallFuture<'a, T> {
        if self.cut.load(Ordering::SeqCst) {
            return Box::pin(async {
                Err(Error::new(ErrorKind::Unavailable, "cut from the store"))
            });
        }
        call
    }
}

/// Stores shared by the nodes of one test, as one database would be.
struct Stores {
    leases: Arc<dyn LeaseStore>,
    cluster: Arc<MemoryClusterStore>,
}

impl Stores {
    fn new() -> Self {
        Stores {
            leases: Arc::new(MemoryLeaseStore::default()),
            cluster: Arc::new(MemoryClusterStore::new()),
        }
    }

    /// Starts a node named `id` with one job over its own cuttable view of the store.
    async fn node(&self, id: &str, unreachable: Duration, job: PartitionedJob) -> TestNode {
        let store = Arc::new(Cuttable::default());
        let inner: Arc<dyn ClusterStore> = self.cluster.clone();
        let layered = Arc::new(Layered::new(inner, store.clone()));
        let mut config = ClusterConfig::new(NodeId::new(id).unwrap(), "test-host");
        config.heartbeat_interval = Duration::from_millis(100);
        config.unreachable_after = unreachable;
        config.removed_after = Duration::from_secs(120);
        config.shutdown_grace = Duration::from_millis(200);
        config.elector =
            ElectorConfig::new(HolderId::new(id).unwrap()).with_ttl(Duration::from_secs(2));
        let cluster = Cluster::builder(self.leases.clone(), layered)
            .config(config)
            .partitioned(job)
            .start()
            .await
            .expect("the node starts");
        TestNode { cluster, store }
    }

    async fn partitions(&self, batch: i64) -> Vec<Partition> {
        self.cluster.partition_list(PartitionListParams::new(batch)).await.unwrap().items
    }

    async fn node_record(&self, id: &str) -> Node {
        let nodes = self.cluster.node_list(NodeListParams::default()).await.unwrap().items;
        nodes.into_iter().find(|node| node.id.as_str() == id).expect("a registered node")
    }
}

/// A running node and its view of the store.
struct TestNode {
    cluster: Cluster,
    store: Arc<Cuttable>,
}

impl TestNode {
    /// Waits until this node leads the cluster.
    async fn leads(&self) {
        let mut leadership = self.cluster.leadership();
        timeout(PATIENCE, leadership.wait_for(|l| l.token().is_some()))
            .await
            .expect("the node leads in time")
            .unwrap();
    }
}

/// What the test handlers report.
#[derive(Debug)]
enum Event {
    /// A fresh partition saved [`CHECKPOINT`].
    Checkpointed { key: String, node: String, ctx: PartitionContext },
    /// A partition told to stop returned.
    Stopped { key: String },
    /// A partition resumed from a checkpoint.
    Resumed { key: String, node: String, token: FencingToken, from: String },
}

type Events = mpsc::UnboundedSender<Event>;

/// The job `rows` with `count` partitions `p0`, `p1`, … assigned round-robin.
fn rows(count: usize, handler: impl PartitionHandler) -> PartitionedJob {
    let partitioner = move |_live: usize| async move {
        (0..count)
            .map(|i| {
                let params = JsonText::new(format!(r#"{{"slice":{i}}}"#))?;
                Ok(PartitionSpec::new(PartitionKey::new(format!("p{i}"))?, params))
            })
            .collect::<Result<Vec<_>>>()
    };
    PartitionedJob::new("rows".parse().unwrap(), partitioner, handler)
}

fn result(key: &str, node: &str) -> String {
    format!(r#"{{"key":"{key}","node":"{node}"}}"#)
}

/// A handler that checkpoints a fresh partition, then completes it or, when `hold` is set,
/// waits until it is told to stop; a resumed partition completes at once.
fn checkpointing(node: &str, hold: bool, events: Events) -> impl PartitionHandler {
    let node = node.to_owned();
    move |ctx: PartitionContext| {
        let (node, events) = (node.clone(), events.clone());
        async move {
            let key = ctx.key().to_string();
            if let Some(from) = ctx.resume_from() {
                let (token, from) = (ctx.token(), from.to_string());
                let _ = events.send(Event::Resumed {
                    key: key.clone(),
                    node: node.clone(),
                    token,
                    from,
                });
                return Ok(result(&key, &node));
            }
            let checkpoint = JsonText::new(CHECKPOINT).map_err(|e| e.to_string())?;
            ctx.checkpoint(checkpoint, 500).await.map_err(|e| e.to_string())?;
            let _ = events.send(Event::Checkpointed {
                key: key.clone(),
                node: node.clone(),
                ctx: ctx.clone(),
            });
            if hold {
                ctx.cancelled().await;
                let _ = events.send(Event::Stopped { key });
                return Err("stopped before the end".to_string());
            }
            Ok(result(&key, &node))
        }
    }
}

/// A batch callback sending what it is given.
fn reporting(
    sender: mpsc::UnboundedSender<(BatchJob, Vec<Partition>)>,
) -> impl Fn(BatchJob, Vec<Partition>) -> std::future::Ready<()> + Send + Sync + 'static {
    move |batch, partitions| {
        let _ = sender.send((batch, partitions));
        std::future::ready(())
    }
}

async fn next<T>(receiver: &mut mpsc::UnboundedReceiver<T>, what: &str) -> T {
    timeout(PATIENCE, receiver.recv())
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
        .unwrap_or_else(|| panic!("no more senders while waiting for {what}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_nodes_run_every_partition_once_and_the_callback_gets_every_result() {
    let stores = Stores::new();
    let (finished, mut finishes) = mpsc::unbounded_channel();
    let runs: Arc<Mutex<HashMap<String, Vec<String>>>> = Arc::default();
    let job = |node: &'static str| {
        let runs = runs.clone();
        let handler = move |ctx: PartitionContext| {
            let key = ctx.key().to_string();
            runs.lock().unwrap().entry(key.clone()).or_default().push(node.to_owned());
            std::future::ready(Ok::<_, String>(result(&key, node)))
        };
        rows(9, handler).on_success(reporting(finished.clone()))
    };
    let second = Duration::from_secs(1);
    let mut nodes = Vec::new();
    for id in ["node-a", "node-b", "node-c"] {
        nodes.push(stores.node(id, second, job(id)).await);
    }
    let batch = nodes[1].cluster.run(&"rows".parse().unwrap()).await.unwrap();
    let (done, partitions) = next(&mut finishes, "the success callback").await;
    assert_eq!((done.id, done.state), (batch, BatchState::Succeeded));
    assert_eq!(partitions.len(), 9);
    for partition in &partitions {
        assert_eq!(partition.state, PartitionState::Completed, "{partition:?}");
        assert_eq!(partition.attempts, 1, "{partition:?}");
        let node = partition.node.as_ref().unwrap().as_str();
        let expected = result(partition.key.as_str(), node);
        assert_eq!(partition.result.as_ref().map(JsonText::as_str), Some(expected.as_str()));
    }
    for node in &nodes {
        node.cluster.shutdown().await;
    }
    let runs = runs.lock().unwrap();
    assert_eq!(runs.len(), 9);
    let mut per_node: HashMap<&str, usize> = HashMap::new();
    for (key, ran_on) in runs.iter() {
        assert_eq!(ran_on.len(), 1, "{key} ran on {ran_on:?}");
        *per_node.entry(ran_on[0].as_str()).or_default() += 1;
    }
    assert_eq!(per_node.values().copied().collect::<Vec<_>>(), [3, 3, 3], "{per_node:?}");
    assert!(finishes.try_recv().is_err(), "the callback ran once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_node_cut_from_the_store_stops_and_its_partition_resumes_elsewhere_fenced() {
    let stores = Stores::new();
    let (events, mut received) = mpsc::unbounded_channel();
    let (finished, mut finishes) = mpsc::unbounded_channel();
    let unreachable = Duration::from_secs(1);
    let job = |node: &str, hold: bool| {
        rows(3, checkpointing(node, hold, events.clone())).on_success(reporting(finished.clone()))
    };
    // node-b leads throughout; node-a, the victim, holds its partition until told to stop.
    let b = stores.node("node-b", unreachable, job("node-b", false)).await;
    b.leads().await;
    let a = stores.node("node-a", unreachable, job("node-a", true)).await;
    let c = stores.node("node-c", unreachable, job("node-c", false)).await;
    let incarnation = stores.node_record("node-a").await.token;
    let batch = c.cluster.run(&"rows".parse().unwrap()).await.unwrap();
    let mut victim = None;
    for _ in 0..3 {
        if let Event::Checkpointed { key, node, ctx } = next(&mut received, "checkpoints").await
            && node == "node-a"
        {
            victim = Some((key, ctx));
        }
    }
    let (key, stale) = victim.expect("round-robin gives node-a a partition");
    let cut_at = Instant::now();
    a.store.cut.store(true, Ordering::SeqCst);

    let Event::Stopped { key: stopped } = next(&mut received, "the victim to stop").await else {
        panic!("expected the victim to stop first");
    };
    let stopped_after = cut_at.elapsed();
    assert_eq!(stopped, key);
    let partition = stores.partitions(batch).await.into_iter().find(|p| p.key.as_str() == key);
    let partition = partition.unwrap();
    assert_eq!(
        (partition.state, partition.token),
        (PartitionState::Claimed, Some(stale.token())),
        "the victim stopped {stopped_after:?} after the cut, before its partition moved"
    );

    let Event::Resumed { key: resumed, node, token, from } =
        next(&mut received, "the partition to resume").await
    else {
        panic!("expected the partition to resume");
    };
    assert_eq!(resumed, key);
    assert_ne!(node, "node-a");
    assert!(token > stale.token(), "resumed under {token}, after {}", stale.token());
    assert_eq!(from, CHECKPOINT);
    let late = stale.checkpoint(JsonText::new(r#"{"row":900}"#).unwrap(), 900).await;
    assert_eq!(late.unwrap_err().kind(), ErrorKind::LeaseLost);
    let params = PartitionCheckpointParams {
        id: stale.id(),
        token: stale.token(),
        checkpoint: JsonText::new(r#"{"row":900}"#).unwrap(),
        progress: 900,
    };
    let late = stores.cluster.partition_checkpoint(params).await;
    assert_eq!(late.unwrap_err().kind(), ErrorKind::LeaseLost, "the store fences it too");

    let (done, partitions) = next(&mut finishes, "the success callback").await;
    assert_eq!((done.id, done.state), (batch, BatchState::Succeeded));
    let moved = partitions.iter().find(|p| p.key.as_str() == key).unwrap();
    assert_eq!((moved.attempts, moved.token), (2, Some(token)));
    assert_eq!(moved.result.as_ref().map(JsonText::as_str), Some(result(&key, &node).as_str()));

    // Back in touch, the victim registers again as a new incarnation.
    a.store.cut.store(false, Ordering::SeqCst);
    timeout(PATIENCE, async {
        loop {
            let record = stores.node_record("node-a").await;
            if record.state == NodeState::Active && record.token > incarnation {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("node-a registers again");
    for node in [a, b, c] {
        node.cluster.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_failed_partition_fails_the_batch_and_calls_the_failure_callback() {
    let stores = Stores::new();
    let (failed, mut failures) = mpsc::unbounded_channel();
    let (succeeded, mut successes) = mpsc::unbounded_channel();
    let job = || {
        let handler = |ctx: PartitionContext| async move {
            if ctx.key().as_str() == "p2" { Err("bad row 7") } else { Ok(()) }
        };
        rows(4, handler)
            .on_success(reporting(succeeded.clone()))
            .on_failure(reporting(failed.clone()))
    };
    let second = Duration::from_secs(1);
    let a = stores.node("node-a", second, job()).await;
    let b = stores.node("node-b", second, job()).await;
    let batch = a.cluster.run(&"rows".parse().unwrap()).await.unwrap();
    let (done, partitions) = next(&mut failures, "the failure callback").await;
    assert_eq!((done.id, done.state), (batch, BatchState::Failed));
    assert_eq!(done.failure.as_deref(), Some("1 partition failed: p2 (bad row 7)"));
    let failed: Vec<(&str, Option<&str>)> =
        partitions.iter().map(|p| (p.key.as_str(), p.error.as_deref())).collect();
    assert_eq!(failed, [("p2", Some("bad row 7"))]);
    let states: Vec<PartitionState> =
        stores.partitions(batch).await.iter().map(|p| p.state).collect();
    use PartitionState::{Completed, Failed};
    assert_eq!(states, [Completed, Completed, Failed, Completed]);
    a.cluster.shutdown().await;
    b.cluster.shutdown().await;
    assert!(successes.try_recv().is_err(), "no success callback");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_graceful_shutdown_hands_partitions_and_the_leadership_over_at_once() {
    let stores = Stores::new();
    let (events, mut received) = mpsc::unbounded_channel();
    let (finished, mut finishes) = mpsc::unbounded_channel();
    // Far beyond the test's patience: only the leave can move the partition in time.
    let unreachable = Duration::from_secs(60);
    let job = |node: &str, hold: bool| {
        rows(2, checkpointing(node, hold, events.clone())).on_success(reporting(finished.clone()))
    };
    let a = stores.node("node-a", unreachable, job("node-a", true)).await;
    a.leads().await;
    let b = stores.node("node-b", unreachable, job("node-b", false)).await;
    let batch = b.cluster.run(&"rows".parse().unwrap()).await.unwrap();
    let mut held = None;
    for _ in 0..2 {
        if let Event::Checkpointed { key, node, .. } = next(&mut received, "checkpoints").await
            && node == "node-a"
        {
            held = Some(key);
        }
    }
    let key = held.expect("round-robin gives node-a a partition");
    let started = Instant::now();
    a.cluster.shutdown().await;
    assert_eq!(stores.node_record("node-a").await.state, NodeState::Left);
    let partition = stores.partitions(batch).await.into_iter().find(|p| p.key.as_str() == key);
    let partition = partition.unwrap();
    assert_eq!(partition.node.as_ref().map(NodeId::as_str), Some("node-b"), "{partition:?}");
    assert_ne!(partition.state, PartitionState::Failed, "{partition:?}");

    let Event::Stopped { key: stopped } = next(&mut received, "node-a to stop").await else {
        panic!("expected node-a's partition to stop");
    };
    assert_eq!(stopped, key);
    let Event::Resumed { key: resumed, node, from, .. } =
        next(&mut received, "the partition to resume").await
    else {
        panic!("expected the partition to resume");
    };
    assert_eq!(
        (resumed.as_str(), node.as_str(), from.as_str()),
        (key.as_str(), "node-b", CHECKPOINT)
    );
    let (done, _) = next(&mut finishes, "the new leader's success callback").await;
    assert_eq!((done.id, done.state), (batch, BatchState::Succeeded));
    let handover = started.elapsed();
    assert!(handover < Duration::from_secs(5), "handed over in {handover:?}");
    b.cluster.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_partitions_and_unknown_jobs_are_refused_and_nothing_is_stored() {
    let stores = Stores::new();
    let empty = PartitionedJob::new(
        "empty".parse().unwrap(),
        |_live: usize| async { Ok::<Vec<PartitionSpec>, Error>(Vec::new()) },
        |_ctx: PartitionContext| async { Ok::<(), String>(()) },
    );
    let node = stores.node("node-a", Duration::from_secs(1), empty).await;
    let err = node.cluster.run(&"empty".parse().unwrap()).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert_eq!(err.to_string(), "invalid partition count 0: expected 1 to 100000 partitions");
    let err = node.cluster.run(&"missing".parse().unwrap()).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    assert_eq!(err.to_string(), "partitioned job missing is not registered on node node-a");
    let batches = stores.cluster.batch_list(BatchListParams::default()).await.unwrap();
    assert!(batches.items.is_empty(), "{batches:?}");
    node.cluster.shutdown().await;

    let job = || rows(1, |_ctx: PartitionContext| async { Ok::<(), String>(()) });
    let twice = Cluster::builder(stores.leases.clone(), stores.cluster.clone())
        .partitioned(job())
        .partitioned(job())
        .start()
        .await;
    let err = twice.unwrap_err();
    assert_eq!(
        err.to_string(),
        "partitioned job rows registered twice: expected each job once per node"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_dropped_node_stops_and_another_node_takes_the_leadership() {
    let stores = Stores::new();
    let (events, _received) = mpsc::unbounded_channel();
    let unreachable = Duration::from_secs(60);
    let a = stores
        .node("node-a", unreachable, rows(1, checkpointing("node-a", false, events.clone())))
        .await;
    a.leads().await;
    let b =
        stores.node("node-b", unreachable, rows(1, checkpointing("node-b", false, events))).await;
    drop(a);
    b.leads().await;
    assert_eq!(stores.node_record("node-a").await.state, NodeState::Active, "dropped, not left");
    b.cluster.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_refused_the_leadership_for_good_closes_its_leadership_channel() {
    let stores = Stores::new();
    let leases: Arc<dyn LeaseStore> =
        Arc::new(Layered::new(stores.leases.clone(), Arc::new(common::Refusing)));
    let mut config = ClusterConfig::new(NodeId::new("refused").unwrap(), "test-host");
    config.elector = ElectorConfig::new(HolderId::new("refused").unwrap());
    let node =
        Cluster::builder(leases, stores.cluster.clone()).config(config).start().await.unwrap();
    let mut leadership = node.leadership();
    let closed = timeout(PATIENCE, leadership.changed()).await.expect("the channel changes");
    assert!(closed.is_err(), "the leadership channel closed");
    node.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_stalled_node_sees_the_loss_before_its_next_write_and_stops_its_partition() {
    let stores = Stores::new();
    let (events, mut received) = mpsc::unbounded_channel();
    // One node holding its one partition until told to stop; it may act 1.2 s after a
    // confirmed heartbeat, and a gap of 400 ms without running is a stall.
    let a = stores
        .node("node-a", Duration::from_secs(2), rows(1, checkpointing("node-a", true, events)))
        .await;
    a.leads().await;
    a.cluster.run(&"rows".parse().unwrap()).await.unwrap();
    let Event::Checkpointed { ctx, .. } = next(&mut received, "the checkpoint").await else {
        panic!("expected the partition to checkpoint first");
    };
    ctx.ensure_valid().unwrap();
    // Moving the paused clock without letting any task run is what a SIGSTOP looks like.
    tokio::time::advance(Duration::from_millis(500)).await;
    let err = ctx.ensure_valid().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LeaseLost);
    assert!(err.to_string().contains("stalled"), "{err}");
    let Event::Stopped { .. } = next(&mut received, "the partition to stop").await else {
        panic!("expected the partition to stop");
    };
    a.cluster.shutdown().await;
}
