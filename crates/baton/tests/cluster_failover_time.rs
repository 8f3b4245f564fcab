//! How soon a crashed node's partition runs elsewhere, at the default cluster timing, on
//! tokio's paused clock (the in-memory stores follow it): the leader sweeps just after the
//! node's last heartbeat turns stale, and the survivors claim when woken, not at their next
//! poll.

use std::sync::Arc;
use std::time::Duration;

use baton::cluster::{
    BatchJob, BatchState, Cluster, ClusterConfig, JsonText, NodeId, Partition, PartitionContext,
    PartitionKey, PartitionSpec, PartitionedJob,
};
use baton::core::cluster::{NodeListParams, NodeState, NodeThresholds, PartitionListParams};
use baton::core::memory::{MemoryClusterStore, MemoryLeaseStore};
use baton::core::time::Clock;
use baton::core::{ClusterStore, Result};
use baton::{ElectorConfig, HolderId, LeaseStore, StoreTime};
use tokio::sync::mpsc;
use tokio::time::{Instant, timeout};

/// How long, in virtual time, the test waits for any one signal.
const PATIENCE: Duration = Duration::from_secs(120);

/// Store time that follows tokio's clock, so that pausing and advancing it moves both.
struct TokioClock {
    origin: Instant,
}

impl Clock for TokioClock {
    fn now(&self) -> StoreTime {
        StoreTime::from_millis(1_800_000_000_000).saturating_add(self.origin.elapsed())
    }
}

/// The job `rows`: one partition per live node; the node `victim` holds its partition until
/// told to stop, and every other run completes at once, reporting where it ran.
fn rows(
    victim: &'static str,
    node: &'static str,
    started: mpsc::UnboundedSender<String>,
    finished: mpsc::UnboundedSender<BatchJob>,
) -> PartitionedJob {
    let partitioner = |live: usize| async move {
        (0..live)
            .map(|i| {
                Ok(PartitionSpec::new(PartitionKey::new(format!("p{i}"))?, JsonText::new("{}")?))
            })
            .collect::<Result<Vec<_>>>()
    };
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
    let on_success = move |batch: BatchJob, _: Vec<Partition>| {
        let _ = finished.send(batch);
        std::future::ready(())
    };
    PartitionedJob::new("rows".parse().unwrap(), partitioner, handler).on_success(on_success)
}

async fn start(
    leases: &Arc<dyn LeaseStore>,
    store: &Arc<dyn ClusterStore>,
    id: &'static str,
    job: PartitionedJob,
) -> Cluster {
    // The default timing: a heartbeat every 2 s, unreachable after 10 s.
    let config = ClusterConfig {
        elector: ElectorConfig::new(HolderId::new(id).unwrap()),
        ..ClusterConfig::new(NodeId::new(id).unwrap(), "test-host")
    };
    Cluster::builder(leases.clone(), store.clone())
        .config(config)
        .partitioned(job)
        .start()
        .await
        .expect("the node starts")
}

async fn next<T>(receiver: &mut mpsc::UnboundedReceiver<T>, what: &str) -> T {
    timeout(PATIENCE, receiver.recv())
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
        .unwrap_or_else(|| panic!("no more senders while waiting for {what}"))
}

#[tokio::test(start_paused = true)]
async fn a_crashed_nodes_partition_runs_elsewhere_just_after_its_heartbeat_goes_stale() {
    let clock = Arc::new(TokioClock { origin: Instant::now() });
    let leases: Arc<dyn LeaseStore> = Arc::new(MemoryLeaseStore::with_clock(clock.clone()));
    let store: Arc<dyn ClusterStore> = Arc::new(MemoryClusterStore::with_clock(clock.clone()));
    let (started, mut starts) = mpsc::unbounded_channel();
    let (finished, mut finishes) = mpsc::unbounded_channel();
    let job = |node| rows("node-a", node, started.clone(), finished.clone());
    // node-b starts first and leads; node-a is the victim.
    let b = start(&leases, &store, "node-b", job("node-b")).await;
    timeout(PATIENCE, b.leadership().wait_for(|l| l.token().is_some()))
        .await
        .expect("node-b leads")
        .unwrap();
    let a = start(&leases, &store, "node-a", job("node-a")).await;
    let c = start(&leases, &store, "node-c", job("node-c")).await;
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
