//! Cases on node membership: registration and incarnations, heartbeats, the sweep and
//! leaving (I8).

use baton_core::cluster::{
    NodeChange, NodeChangeReason, NodeChangesParams, NodeLeaveParams, NodeListParams, NodeState,
    PartitionState, Strategy,
};
use baton_core::{ClusterStore, ErrorKind, NodeId};

use super::ClusterHarness;
use super::support::*;

async fn history(store: &dyn ClusterStore, node: &NodeId) -> Vec<NodeChange> {
    let params = NodeChangesParams { node: Some(node.clone()), limit: 1000, ..Default::default() };
    store.node_changes(params).await.expect("node_changes").items
}

async fn node_state(store: &dyn ClusterStore, id: &NodeId) -> NodeState {
    let nodes = store.node_list(NodeListParams { limit: 1000, ..Default::default() }).await;
    let nodes = nodes.expect("node_list").items;
    nodes.into_iter().find(|n| &n.id == id).expect("the node is listed").state
}

/// A registration stores the node active from store time now, under a token greater than any
/// before, and records the change.
pub async fn registration_issues_a_token_and_records_the_change(h: &dyn ClusterHarness) {
    let store = h.store().await;
    let before = store.now().await.expect("store time");
    let id = unique_node("reg");
    let first = register_as(&*store, &id, 3).await;
    let after = store.now().await.expect("store time");
    assert_eq!((&first.id, first.host.as_str(), first.version.as_str()), (&id, "host-1", "1.2.3"));
    assert_eq!((first.state, first.load), (NodeState::Active, 3));
    assert!(before <= first.started_at && first.started_at <= after, "stamped in store time");
    assert_eq!(first.heartbeat_at, first.started_at);
    assert_eq!(first.state_changed_at, first.started_at);

    let second = register(&*store, "reg-other").await;
    assert!(second.token > first.token, "tokens grow across registrations");
    assert!(second.seq > first.seq, "nodes are numbered in registration order");

    let changes = history(&*store, &id).await;
    assert_eq!(changes.len(), 1, "{changes:?}");
    let change = &changes[0];
    assert_eq!((&change.node, change.token), (&id, first.token));
    assert_eq!((change.from, change.to), (None, NodeState::Active));
    assert_eq!((change.reason, change.at), (NodeChangeReason::Registered, first.started_at));
}

/// Registering an id again starts a new incarnation under a greater token: the previous one
/// can no longer heartbeat, claim, leave, checkpoint, complete or fail, its transferable
/// claims wait for the new one with their checkpoint, and a claim that cannot move fails.
pub async fn registering_again_fences_the_previous_incarnation(h: &dyn ClusterHarness) {
    let store = h.store().await;
    let old = register(&*store, "incarnation").await;
    let mut specs = specs(3);
    specs[1].transferable = false;
    let (batch, _) = create(&*store, Strategy::RoundRobin, assigned_to(specs, &[&old])).await;
    let claimed = claim(&*store, &old, 2).await;
    let (p0, p1) = (&claimed[0], &claimed[1]);
    store.partition_checkpoint(checkpoint_params(p0, r#"{"at":7}"#, 7)).await.expect("checkpoint");

    let new = register_as(&*store, &old.id, 0).await;
    assert!(new.token > token(p1), "the new incarnation's token is greater than any before");
    assert_eq!((new.seq, new.state), (old.seq, NodeState::Active));
    assert!(new.started_at >= old.started_at);

    let beat = store.node_heartbeat(heartbeat_params(&old, 0, &[(p0, 8)])).await;
    assert_kind(beat, ErrorKind::LeaseLost, "the old incarnation's heartbeat");
    assert_kind(
        store.partition_claim(claim_params(&old, 10)).await,
        ErrorKind::LeaseLost,
        "old claim",
    );
    let leave = NodeLeaveParams { node: old.id.clone(), token: old.token };
    assert_kind(store.node_leave(leave).await, ErrorKind::LeaseLost, "the old incarnation's leave");
    let late = store.partition_checkpoint(checkpoint_params(p0, r#"{"at":8}"#, 8)).await;
    assert_kind(late, ErrorKind::LeaseLost, "the old incarnation's checkpoint");
    let complete =
        baton_core::cluster::PartitionCompleteParams { id: p0.id, token: token(p0), result: None };
    assert_kind(store.partition_complete(complete).await, ErrorKind::LeaseLost, "old complete");
    let fail =
        baton_core::cluster::PartitionFailParams { id: p1.id, token: token(p1), error: "x".into() };
    assert_kind(store.partition_fail(fail).await, ErrorKind::LeaseLost, "old fail");

    let p0_now = partition(&*store, batch.id, p0.id).await;
    assert_eq!((p0_now.state, p0_now.node.as_ref()), (PartitionState::Pending, Some(&old.id)));
    assert_eq!(p0_now.checkpoint, Some(json(r#"{"at":7}"#)), "the checkpoint is kept");
    let p1_now = partition(&*store, batch.id, p1.id).await;
    assert_eq!(p1_now.state, PartitionState::Failed);
    let error = p1_now.error.unwrap_or_default();
    assert!(error.contains(old.id.as_str()) && error.contains("p1"), "{error}");

    let resumed = claim(&*store, &new, 10).await;
    let keys: Vec<&str> = resumed.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["p0", "p2"], "the new incarnation claims what waits for its id");
    assert_eq!(
        (resumed[0].attempts, resumed[0].checkpoint.clone()),
        (2, Some(json(r#"{"at":7}"#)))
    );
    keep_alive(&*store, &new).await;

    let changes = history(&*store, &old.id).await;
    let seen: Vec<_> = changes.iter().map(|c| (c.from, c.to, c.reason, c.token)).collect();
    assert_eq!(
        seen,
        [
            (None, NodeState::Active, NodeChangeReason::Registered, old.token),
            (Some(NodeState::Active), NodeState::Active, NodeChangeReason::Reregistered, new.token),
        ]
    );
}

/// A heartbeat stamps the node and each partition it still holds with store time and their
/// progress, and answers the partitions it does not hold.
pub async fn heartbeats_are_stamped_in_store_time(h: &dyn ClusterHarness) {
    let store = h.store().await;
    let node = register(&*store, "beat").await;
    let other = register(&*store, "beat-other").await;
    let (batch, _) = create(&*store, Strategy::FreeForAll, assigned_to(specs(2), &[])).await;
    let claimed = claim(&*store, &node, 2).await;
    let (held, foreign) = (&claimed[0], &claimed[1]);
    wait_past(&*store, held.heartbeat_at.expect("claimed partitions are stamped")).await;

    let before = store.now().await.expect("store time");
    let mut params = heartbeat_params(&node, 7, &[(held, 5), (foreign, 9)]);
    params.partitions[1].token = token(held);
    params.partitions.push(baton_core::cluster::PartitionBeat {
        id: i64::MAX,
        token: token(held),
        progress: 1,
    });
    let outcome = store.node_heartbeat(params).await.expect("heartbeat");
    let after = store.now().await.expect("store time");
    assert_eq!(outcome.lost, [foreign.id, i64::MAX], "a wrong token or an unknown id is lost");
    let stamped = outcome.node.heartbeat_at;
    assert!(before <= stamped && stamped <= after, "stamped in store time");
    assert!(Some(stamped) > held.heartbeat_at, "the stamp moves on");
    assert_eq!((outcome.node.load, outcome.node.token), (7, node.token));

    let held_now = partition(&*store, batch.id, held.id).await;
    assert_eq!((held_now.heartbeat_at, held_now.progress), (Some(stamped), 5));
    assert_eq!(
        partition(&*store, batch.id, foreign.id).await,
        *foreign,
        "a lost beat changes nothing"
    );

    let stranger = store.node_heartbeat(heartbeat_params(&other, 0, &[(held, 6)])).await;
    assert_eq!(stranger.expect("heartbeat").lost, [held.id], "another node's partition is lost");
    assert_eq!(partition(&*store, batch.id, held.id).await.progress, 5);
}

/// A silent node becomes unreachable once its heartbeat is older than the unreachable
/// threshold on the store's clock, then removed; each change is recorded, and from the first
/// one its incarnation is fenced.
pub async fn silent_nodes_go_unreachable_then_removed_on_the_store_clock(h: &dyn ClusterHarness) {
    let store = h.store().await;
    let silent = register(&*store, "silent").await;
    let alive = register(&*store, "alive").await;
    assert_eq!(sweep(&*store).await, Vec::new(), "fresh nodes stay active");

    lose(&*store, &silent, &alive).await;
    let changes = history(&*store, &silent.id).await;
    let unreachable = changes.last().expect("the change is recorded");
    let threshold = thresholds().unreachable_after();
    assert!(unreachable.at > silent.heartbeat_at.saturating_add(threshold), "{unreachable:?}");
    assert_eq!(
        (unreachable.reason, unreachable.token),
        (NodeChangeReason::NoHeartbeat, silent.token)
    );
    assert_kind(
        store.node_heartbeat(heartbeat_params(&silent, 0, &[])).await,
        ErrorKind::LeaseLost,
        "a heartbeat of an unreachable node",
    );
    assert_kind(
        store.partition_claim(claim_params(&silent, 1)).await,
        ErrorKind::LeaseLost,
        "claim",
    );

    wait_past(&*store, silent.heartbeat_at.saturating_add(thresholds().removed_after())).await;
    keep_alive(&*store, &alive).await;
    sweep(&*store).await;
    assert_eq!(node_state(&*store, &silent.id).await, NodeState::Removed);
    assert_eq!(node_state(&*store, &alive.id).await, NodeState::Active);
    let changes = history(&*store, &silent.id).await;
    let path: Vec<(Option<NodeState>, NodeState)> =
        changes.iter().map(|c| (c.from, c.to)).collect();
    let (active, unreachable, removed) =
        (NodeState::Active, NodeState::Unreachable, NodeState::Removed);
    let stepwise = [(None, active), (Some(active), unreachable), (Some(unreachable), removed)];
    let direct = [(None, active), (Some(active), removed)];
    assert!(path == stepwise || path == direct, "{path:?}");
    let removed = changes.last().expect("the removal is recorded");
    assert!(removed.at > silent.heartbeat_at.saturating_add(thresholds().removed_after()));
    assert_eq!(history(&*store, &alive.id).await.len(), 1, "the live node never changed");
}

/// A node that leaves is marked left at once and fenced; its pending and claimed partitions
/// move to the live nodes, those it had started keeping their checkpoint, and a claimed one
/// that cannot move fails.
pub async fn a_node_that_leaves_is_fenced_and_its_partitions_move_at_once(h: &dyn ClusterHarness) {
    let store = h.store().await;
    let leaving = register(&*store, "leaving").await;
    let staying = register(&*store, "staying").await;
    let mut specs = specs(6);
    specs[2].transferable = false;
    let nodes = [&leaving, &staying];
    let (batch, _) = create(&*store, Strategy::RoundRobin, assigned_to(specs, &nodes)).await;
    let claimed = claim(&*store, &leaving, 2).await;
    let keys: Vec<&str> = claimed.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["p0", "p2"], "only its own partitions, by id");
    store.partition_checkpoint(checkpoint_params(&claimed[0], "[1]", 1)).await.expect("checkpoint");

    let params = NodeLeaveParams { node: leaving.id.clone(), token: leaving.token };
    let left = store.node_leave(params.clone()).await.expect("leave");
    assert_eq!((left.state, left.token), (NodeState::Left, leaving.token));
    assert!(left.state_changed_at >= leaving.started_at);
    assert_kind(store.node_leave(params).await, ErrorKind::LeaseLost, "leaving twice");
    let beat = store.node_heartbeat(heartbeat_params(&leaving, 0, &[])).await;
    assert_kind(beat, ErrorKind::LeaseLost, "a heartbeat after leaving");
    let change = history(&*store, &leaving.id).await.pop().expect("recorded");
    assert_eq!(
        (change.from, change.to, change.reason),
        (Some(NodeState::Active), NodeState::Left, NodeChangeReason::Left)
    );

    let after = partitions_of(&*store, batch.id).await;
    let summary: Vec<(&str, PartitionState, Option<&str>)> = after
        .iter()
        .map(|p| (p.key.as_str(), p.state, p.node.as_ref().map(|n| n.as_str())))
        .collect();
    let staying_id = Some(staying.id.as_str());
    assert_eq!(
        summary,
        [
            ("p0", PartitionState::Pending, staying_id),
            ("p1", PartitionState::Pending, staying_id),
            ("p2", PartitionState::Failed, Some(leaving.id.as_str())),
            ("p3", PartitionState::Pending, staying_id),
            ("p4", PartitionState::Pending, staying_id),
            ("p5", PartitionState::Pending, staying_id),
        ]
    );
    assert_eq!(after[0].checkpoint, Some(json("[1]")));
    let error = after[2].error.as_deref().unwrap_or_default();
    assert!(error.contains("left") && error.contains("p2"), "{error}");
}
