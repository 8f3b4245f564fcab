//! Helpers shared by the cluster-store conformance cases.

use std::time::Duration;

pub(super) use crate::conformance::assert_kind;
use baton_core::cluster::{
    AssignedPartition, BatchCreateParams, BatchJob, JsonText, Node, NodeHeartbeatOutcome,
    NodeHeartbeatParams, NodeId, NodeRegisterParams, NodeSweepParams, NodeThresholds, Partition,
    PartitionBeat, PartitionCheckpointParams, PartitionClaimParams, PartitionKey,
    PartitionListParams, PartitionSpec, Strategy, Swept,
};
use baton_core::{ClusterStore, FencingToken, JobName, StoreTime};

/// How long a case waits for a condition before failing.
pub(super) const PATIENCE: Duration = Duration::from_secs(30);

/// The thresholds every case sweeps with: a heartbeat every 500 ms, unreachable after 2 s,
/// removed after 4 s. A case keeps a node it needs alive by registering or heartbeating it
/// just before it sweeps.
pub fn thresholds() -> NodeThresholds {
    let (beat, unreachable, removed) = (500, 2_000, 4_000);
    NodeThresholds::new(
        Duration::from_millis(beat),
        Duration::from_millis(unreachable),
        Duration::from_millis(removed),
    )
    .expect("valid thresholds")
}

/// A node id unique to this run.
pub fn unique_node(prefix: &str) -> NodeId {
    NodeId::new(format!("{prefix}-{:016x}", fastrand::u64(..))).expect("valid generated node id")
}

pub(super) fn unique_batch_name(prefix: &str) -> JobName {
    JobName::new(format!("{prefix}-{:016x}", fastrand::u64(..))).expect("valid generated name")
}

pub(super) fn register_params(id: &NodeId, load: u32) -> NodeRegisterParams {
    NodeRegisterParams { id: id.clone(), host: "host-1".into(), version: "1.2.3".into(), load }
}

/// Registers a new node of the case's own, with no load.
pub(super) async fn register(store: &dyn ClusterStore, prefix: &str) -> Node {
    register_as(store, &unique_node(prefix), 0).await
}

pub(super) async fn register_as(store: &dyn ClusterStore, id: &NodeId, load: u32) -> Node {
    store.node_register(register_params(id, load)).await.expect("register the node")
}

pub(super) fn json(text: &str) -> JsonText {
    JsonText::new(text).expect("valid JSON text")
}

pub(super) fn key(text: &str) -> PartitionKey {
    PartitionKey::new(text).expect("valid partition key")
}

/// `count` transferable specs keyed `p0`, `p1`, … with parameters `{"n":i}`.
pub(super) fn specs(count: usize) -> Vec<PartitionSpec> {
    (0..count)
        .map(|i| PartitionSpec::new(key(&format!("p{i}")), json(&format!("{{\"n\":{i}}}"))))
        .collect()
}

/// Each spec assigned to the node at the same position of `nodes`, cycling.
pub(super) fn assigned_to(specs: Vec<PartitionSpec>, nodes: &[&Node]) -> Vec<AssignedPartition> {
    let assignee = |i: usize| (!nodes.is_empty()).then(|| nodes[i % nodes.len()].id.clone());
    specs
        .into_iter()
        .enumerate()
        .map(|(i, spec)| AssignedPartition { spec, node: assignee(i) })
        .collect()
}

/// Creates a batch of a job of its own and answers it with its partitions, by id.
pub(super) async fn create(
    store: &dyn ClusterStore,
    strategy: Strategy,
    partitions: Vec<AssignedPartition>,
) -> (BatchJob, Vec<Partition>) {
    let name = unique_batch_name("batch");
    let params = BatchCreateParams { name, strategy, stealing: false, partitions };
    let batch = store.batch_create(params).await.expect("create the batch");
    let partitions = partitions_of(store, batch.id).await;
    (batch, partitions)
}

/// Every partition of a batch, page by page, by id.
pub(super) async fn partitions_of(store: &dyn ClusterStore, batch: i64) -> Vec<Partition> {
    let mut all = Vec::new();
    let mut params = PartitionListParams { limit: 1000, ..PartitionListParams::new(batch) };
    loop {
        let page = store.partition_list(params.clone()).await.expect("partition_list");
        all.extend(page.items);
        match page.next {
            Some(next) => params.after = Some(next),
            None => return all,
        }
    }
}

/// One partition of a batch, read back.
pub(super) async fn partition(store: &dyn ClusterStore, batch: i64, id: i64) -> Partition {
    let all = partitions_of(store, batch).await;
    all.into_iter().find(|p| p.id == id).expect("the partition exists")
}

pub(super) fn claim_params(node: &Node, limit: u32) -> PartitionClaimParams {
    PartitionClaimParams { node: node.id.clone(), token: node.token, limit, jobs: Vec::new() }
}

/// Claims up to `limit` partitions for `node`, checking what every claim must hold.
pub(super) async fn claim(store: &dyn ClusterStore, node: &Node, limit: u32) -> Vec<Partition> {
    let claimed = store.partition_claim(claim_params(node, limit)).await.expect("claim");
    assert!(claimed.len() <= limit as usize, "a claim takes at most its limit");
    for partition in &claimed {
        assert_eq!(partition.state, baton_core::cluster::PartitionState::Claimed);
        assert_eq!(partition.node.as_ref(), Some(&node.id), "claimed by the claimer");
        assert!(token(partition) > node.token, "a claim's token follows the registration's");
        assert!(partition.claimed_at.is_some() && partition.heartbeat_at.is_some());
    }
    claimed
}

pub(super) fn token(partition: &Partition) -> FencingToken {
    partition.token.expect("a claimed partition has a token")
}

pub(super) fn checkpoint_params(
    partition: &Partition,
    text: &str,
    progress: u64,
) -> PartitionCheckpointParams {
    PartitionCheckpointParams {
        id: partition.id,
        token: token(partition),
        checkpoint: json(text),
        progress,
    }
}

pub(super) fn heartbeat_params(
    node: &Node,
    load: u32,
    partitions: &[(&Partition, u64)],
) -> NodeHeartbeatParams {
    let partitions = partitions
        .iter()
        .map(|(p, progress)| PartitionBeat { id: p.id, token: token(p), progress: *progress })
        .collect();
    NodeHeartbeatParams { node: node.id.clone(), token: node.token, load, partitions }
}

/// Heartbeats a node alone, so that it stays active through the next sweep.
pub(super) async fn keep_alive(store: &dyn ClusterStore, node: &Node) -> NodeHeartbeatOutcome {
    store.node_heartbeat(heartbeat_params(node, node.load, &[])).await.expect("heartbeat")
}

/// Sweeps with the case's [`thresholds`] and answers the changes.
pub(super) async fn sweep(store: &dyn ClusterStore) -> Vec<baton_core::cluster::NodeChange> {
    sweep_timed(store).await.changes
}

/// Sweeps with the case's [`thresholds`], checking what every answer must hold.
pub(super) async fn sweep_timed(store: &dyn ClusterStore) -> Swept {
    let swept =
        store.node_sweep(NodeSweepParams { thresholds: thresholds() }).await.expect("sweep");
    for change in &swept.changes {
        assert_eq!(change.at, swept.now, "a change is recorded at the time the sweep judged by");
    }
    swept
}

/// Waits until store time is past `at`, polling the store's clock.
pub(super) async fn wait_past(store: &dyn ClusterStore, at: StoreTime) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while store.now().await.expect("store time") <= at {
        assert!(tokio::time::Instant::now() < deadline, "store time never passed {at}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits until `node` has been silent past the unreachable threshold, keeps `survivor`
/// alive, sweeps, and checks that exactly `node` became unreachable.
pub(super) async fn lose(store: &dyn ClusterStore, node: &Node, survivor: &Node) {
    wait_past(store, node.heartbeat_at.saturating_add(thresholds().unreachable_after())).await;
    keep_alive(store, survivor).await;
    let changes = sweep(store).await;
    let moved: Vec<(&NodeId, baton_core::cluster::NodeState)> =
        changes.iter().map(|c| (&c.node, c.to)).collect();
    assert!(
        moved == [(&node.id, baton_core::cluster::NodeState::Unreachable)]
            || moved == [(&node.id, baton_core::cluster::NodeState::Removed)],
        "only the silent node is gone: {changes:?}"
    );
}
