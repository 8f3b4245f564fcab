//! The cluster-store conformance suite against the in-memory reference backend, and checks
//! of its timing under a manual clock.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use baton_core::cluster::{
    NodeChangeReason, NodeHeartbeatParams, NodeId, NodeRegisterParams, NodeState, NodeSweepParams,
    NodeThresholds,
};
use baton_core::memory::MemoryClusterStore;
use baton_core::time::ManualClock;
use baton_core::{ClusterStore, ErrorKind, StoreTime};
use baton_testkit::conformance::cluster::ClusterHarness;

/// One store shared by every handle of a harness.
#[derive(Default)]
struct Memory(Arc<MemoryClusterStore>);

#[async_trait]
impl ClusterHarness for Memory {
    async fn store(&self) -> Arc<dyn ClusterStore> {
        self.0.clone()
    }
}

baton_testkit::cluster_conformance!(Memory::default());

const START: StoreTime = StoreTime::from_millis(1_800_000_000_000);

/// `millis` after [`START`].
fn at(millis: u64) -> StoreTime {
    START.saturating_add(Duration::from_millis(millis))
}

fn manual() -> (Arc<ManualClock>, MemoryClusterStore) {
    let clock = Arc::new(ManualClock::new(START));
    (clock.clone(), MemoryClusterStore::with_clock(clock))
}

fn registration(id: &str) -> NodeRegisterParams {
    let id = NodeId::new(id).unwrap();
    NodeRegisterParams { id, host: "host".into(), version: "1".into(), load: 0 }
}

fn sweep_params() -> NodeSweepParams {
    let thresholds = NodeThresholds::new(
        Duration::from_secs(1),
        Duration::from_secs(5),
        Duration::from_secs(30),
    );
    NodeSweepParams { thresholds: thresholds.unwrap() }
}

#[tokio::test]
async fn tokens_and_numbers_count_from_one() {
    let (_, store) = manual();
    let first = store.node_register(registration("a")).await.unwrap();
    let second = store.node_register(registration("b")).await.unwrap();
    let again = store.node_register(registration("a")).await.unwrap();
    let seen: Vec<(i64, u64)> =
        [&first, &second, &again].iter().map(|n| (n.seq, n.token.get())).collect();
    assert_eq!(seen, [(1, 1), (2, 2), (1, 3)]);
}

#[tokio::test]
async fn a_node_goes_unreachable_then_removed_strictly_after_each_threshold() {
    let (clock, store) = manual();
    let node = store.node_register(registration("a")).await.unwrap();
    clock.advance(Duration::from_secs(5));
    let swept = store.node_sweep(sweep_params()).await.unwrap();
    assert!(swept.changes.is_empty(), "exactly 5 s silent");
    assert_eq!((swept.now, swept.oldest_active_heartbeat), (at(5_000), Some(START)));
    clock.advance(Duration::from_millis(1));
    let swept = store.node_sweep(sweep_params()).await.unwrap();
    let seen: Vec<_> = swept.changes.iter().map(|c| (c.from, c.to, c.reason, c.at)).collect();
    let step =
        (Some(NodeState::Active), NodeState::Unreachable, NodeChangeReason::NoHeartbeat, at(5_001));
    assert_eq!(seen, [step]);
    assert_eq!(swept.oldest_active_heartbeat, None, "no node is left active");

    clock.advance(Duration::from_millis(24_999));
    let swept = store.node_sweep(sweep_params()).await.unwrap();
    assert!(swept.changes.is_empty(), "exactly 30 s silent");
    clock.advance(Duration::from_millis(1));
    let changes = store.node_sweep(sweep_params()).await.unwrap().changes;
    assert_eq!(changes.iter().map(|c| c.to).collect::<Vec<_>>(), [NodeState::Removed]);
    let beat = NodeHeartbeatParams {
        node: node.id.clone(),
        token: node.token,
        load: 0,
        partitions: Vec::new(),
    };
    assert_eq!(store.node_heartbeat(beat).await.unwrap_err().kind(), ErrorKind::LeaseLost);
}

#[tokio::test]
async fn a_heartbeat_restarts_the_silence_and_a_long_silence_goes_straight_to_removed() {
    let (clock, store) = manual();
    let beating = store.node_register(registration("beating")).await.unwrap();
    store.node_register(registration("silent")).await.unwrap();
    clock.advance(Duration::from_secs(4));
    let beat = NodeHeartbeatParams {
        node: beating.id.clone(),
        token: beating.token,
        load: 2,
        partitions: Vec::new(),
    };
    let outcome = store.node_heartbeat(beat).await.unwrap();
    assert_eq!(outcome.node.heartbeat_at, at(4_000));
    let swept = store.node_sweep(sweep_params()).await.unwrap();
    assert_eq!(swept.oldest_active_heartbeat, Some(START), "the silent node's registration");
    clock.advance(Duration::from_secs(27));
    let changes = store.node_sweep(sweep_params()).await.unwrap().changes;
    let seen: Vec<_> = changes.iter().map(|c| (c.node.as_str(), c.from, c.to)).collect();
    assert_eq!(
        seen,
        [
            ("beating", Some(NodeState::Active), NodeState::Unreachable),
            ("silent", Some(NodeState::Active), NodeState::Removed),
        ]
    );
}
