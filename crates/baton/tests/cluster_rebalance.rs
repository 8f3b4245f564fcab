//! The leader rebalancing running batches, on in-memory stores and tokio's paused clock: nodes
//! that join a `scale-up` batch take their share of its pending partitions, and an idle node
//! steals from the busiest when the batch has stealing on; no partition runs twice.

use std::time::Duration;

use baton::cluster::{
    BatchJob, BatchState, ClusterConfig, NodeId, PartitionContext, PartitionedJob, Strategy,
};
use baton::core::ClusterStore;
use baton::core::cluster::{MoveReason, PartitionMove, PartitionMovesParams};
use tokio::sync::{mpsc, watch};
use tokio::time::timeout;

#[path = "common/paused.rs"]
mod paused;
use paused::{config, report, specs, start, stores};

/// How long, in virtual time, the test waits for any one signal.
const PATIENCE: Duration = Duration::from_secs(120);

/// The job `work`: `count` partitions; a run on `node-a` waits until `release` turns true,
/// every other run completes at once. Each run reports "key on node".
fn work(
    count: usize,
    node: &'static str,
    release: watch::Receiver<bool>,
    started: mpsc::UnboundedSender<String>,
    finished: mpsc::UnboundedSender<BatchJob>,
) -> PartitionedJob {
    let partitioner = move |_live: usize| async move { specs(count) };
    let handler = move |ctx: PartitionContext| {
        let (started, mut release) = (started.clone(), release.clone());
        async move {
            let _ = started.send(format!("{} on {node}", ctx.key()));
            if node == "node-a" {
                let _ = release.wait_for(|released| *released).await;
            }
            Ok::<_, String>(())
        }
    };
    PartitionedJob::new("work".parse().unwrap(), partitioner, handler).on_success(report(finished))
}

/// Node `id` at the default timing, running one partition at a time.
fn one_at_a_time(id: &str) -> ClusterConfig {
    let mut config = config(id);
    config.max_concurrent = 1;
    config
}

/// Waits until the batch has recorded `count` moves, and answers them.
async fn moves(store: &dyn ClusterStore, batch: i64, count: usize) -> Vec<PartitionMove> {
    let read = async {
        loop {
            let params = PartitionMovesParams::new(batch);
            let moves = store.partition_moves(params).await.unwrap().items;
            if moves.len() >= count {
                return moves;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    timeout(PATIENCE, read).await.unwrap_or_else(|_| panic!("{count} moves never came"))
}

/// Every run reported until the batch finished, sorted.
async fn runs_until_done(
    starts: &mut mpsc::UnboundedReceiver<String>,
    finishes: &mut mpsc::UnboundedReceiver<BatchJob>,
) -> (BatchJob, Vec<String>) {
    let done = timeout(PATIENCE, finishes.recv()).await.expect("the batch finishes").unwrap();
    let mut runs = Vec::new();
    while let Ok(run) = starts.try_recv() {
        runs.push(run);
    }
    runs.sort();
    (done, runs)
}

fn keys(runs: &[String]) -> Vec<&str> {
    let mut keys: Vec<&str> = runs.iter().map(|run| run.split(' ').next().unwrap()).collect();
    keys.sort();
    keys
}

#[tokio::test(start_paused = true)]
async fn nodes_joining_a_scale_up_batch_take_their_share_of_its_pending_partitions() {
    let (leases, store) = stores();
    let (release, released) = watch::channel(false);
    let (started, mut starts) = mpsc::unbounded_channel();
    let (finished, mut finishes) = mpsc::unbounded_channel();
    let job = |node| {
        work(9, node, released.clone(), started.clone(), finished.clone())
            .strategy(Strategy::ScaleUp)
    };
    let a = start(&leases, &store, one_at_a_time("node-a"), job("node-a")).await;
    let batch = a.run(&"work".parse().unwrap()).await.unwrap();
    let first = timeout(PATIENCE, starts.recv()).await.expect("node-a starts").unwrap();
    assert_eq!(first, "p0 on node-a");

    // The others join later than the batch started (on the store's clock).
    tokio::time::advance(Duration::from_millis(10)).await;
    let b = start(&leases, &store, one_at_a_time("node-b"), job("node-b")).await;
    let c = start(&leases, &store, one_at_a_time("node-c"), job("node-c")).await;
    // Eight pending over three nodes: node-b and node-c take at least two each.
    let joined: Vec<PartitionMove> = moves(&*store, batch, 4).await;
    for moved in &joined {
        assert_eq!((moved.from.as_str(), moved.reason), ("node-a", MoveReason::Join), "{moved:?}");
        assert_ne!(moved.key.as_str(), "p0", "a started partition never moves");
        assert!(moved.token.is_some(), "a move issues a token");
    }
    for node in ["node-b", "node-c"] {
        let taken = joined.iter().filter(|m| m.to.as_ref().map(NodeId::as_str) == Some(node));
        assert!(taken.count() >= 2, "{node} took its share: {joined:?}");
    }

    release.send(true).unwrap();
    let (done, runs) = runs_until_done(&mut starts, &mut finishes).await;
    assert_eq!((done.id, done.state), (batch, BatchState::Succeeded));
    let all: Vec<String> = std::iter::once(first).chain(runs).collect();
    assert_eq!(keys(&all), ["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"], "{all:?}");
    for node in [&a, &b, &c] {
        node.shutdown().await;
    }
}

#[tokio::test(start_paused = true)]
async fn an_idle_node_steals_pending_partitions_from_the_busiest_when_stealing_is_on() {
    let (leases, store) = stores();
    let (release, released) = watch::channel(false);
    let (started, mut starts) = mpsc::unbounded_channel();
    let (finished, mut finishes) = mpsc::unbounded_channel();
    let job =
        |node| work(8, node, released.clone(), started.clone(), finished.clone()).stealing(true);
    let a = start(&leases, &store, one_at_a_time("node-a"), job("node-a")).await;
    let b = start(&leases, &store, one_at_a_time("node-b"), job("node-b")).await;
    // Round-robin: node-a holds p0, p2, p4, p6 and blocks on p0; node-b runs its four at once,
    // then has nothing pending while node-a has three, then two: it steals one each time
    // (half, rounded down), the highest ids first, and stops at one left.
    let batch = a.run(&"work".parse().unwrap()).await.unwrap();
    let stolen = moves(&*store, batch, 2).await;
    let described: Vec<(&str, &str, Option<&str>, MoveReason)> = stolen
        .iter()
        .map(|m| (m.key.as_str(), m.from.as_str(), m.to.as_ref().map(NodeId::as_str), m.reason))
        .collect();
    assert_eq!(
        described,
        [
            ("p6", "node-a", Some("node-b"), MoveReason::Steal),
            ("p4", "node-a", Some("node-b"), MoveReason::Steal),
        ]
    );

    release.send(true).unwrap();
    let (done, runs) = runs_until_done(&mut starts, &mut finishes).await;
    assert_eq!((done.id, done.state), (batch, BatchState::Succeeded));
    assert_eq!(keys(&runs), ["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"], "{runs:?}");
    assert!(runs.contains(&"p6 on node-b".to_string()), "{runs:?}");
    let last = store.partition_moves(PartitionMovesParams::new(batch)).await.unwrap().items;
    assert_eq!(last.len(), 2, "one pending partition is never stolen: {last:?}");
    for node in [&a, &b] {
        node.shutdown().await;
    }
}
