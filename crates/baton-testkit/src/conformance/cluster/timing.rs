//! Cases on what lets the runtime fail over on time: a sweep answers the time it judged by and
//! the oldest heartbeat it left active, and partitions made pending wake the nodes.

use baton_core::NodeId;
use baton_core::cluster::{
    NodeLeaveParams, NodeState, PartitionReassignParams, PartitionState, PendingChanges, Strategy,
};

use super::ClusterHarness;
use super::support::*;

/// A sweep answers the store time it judged by and the oldest heartbeat of the nodes it left
/// active: a node it moved no longer counts, a heartbeat since counts as the node's latest,
/// and there is none once no node is active.
pub async fn a_sweep_answers_its_time_and_the_oldest_active_heartbeat(h: &dyn ClusterHarness) {
    let store = h.store().await;
    let silent = register(&*store, "silent").await;
    let beating = register(&*store, "beating").await;
    let swept = sweep_timed(&*store).await;
    assert_eq!(swept.changes, Vec::new(), "fresh nodes stay active");
    assert!(swept.now >= beating.heartbeat_at, "judged at store time now: {swept:?}");
    let oldest = silent.heartbeat_at.min(beating.heartbeat_at);
    assert_eq!(swept.oldest_active_heartbeat, Some(oldest), "{swept:?}");

    let threshold = thresholds().unreachable_after();
    wait_past(&*store, silent.heartbeat_at.saturating_add(threshold)).await;
    let beat = keep_alive(&*store, &beating).await;
    let swept = sweep_timed(&*store).await;
    let moved: Vec<(&NodeId, NodeState)> = swept.changes.iter().map(|c| (&c.node, c.to)).collect();
    assert_eq!(moved, [(&silent.id, NodeState::Unreachable)], "{swept:?}");
    assert!(swept.now > silent.heartbeat_at.saturating_add(threshold), "{swept:?}");
    assert_eq!(
        swept.oldest_active_heartbeat,
        Some(beat.node.heartbeat_at),
        "only the node left active counts, with its latest heartbeat"
    );

    let params = NodeLeaveParams { node: beating.id.clone(), token: beating.token };
    let left = store.node_leave(params).await.expect("leave");
    let swept = sweep_timed(&*store).await;
    assert_eq!((swept.changes.len(), swept.oldest_active_heartbeat), (0, None), "none active");
    assert!(swept.now >= left.state_changed_at, "{swept:?}");
}

/// A batch created, partitions moved off a node that left, and partitions moved off an
/// unreachable node by a reassignment each wake a subscriber to pending partitions on another
/// handle, when the backend can notify (the feed must be live once `subscribe_pending`
/// returns).
pub async fn pending_partitions_wake_subscribers(h: &dyn ClusterHarness) {
    let store = h.store().await;
    let mut feed = h.store().await.subscribe_pending().await.expect("subscribe_pending");
    let lost = register(&*store, "lost").await;
    let leaving = register(&*store, "leaving").await;
    let survivor = register(&*store, "survivor").await;
    let nodes = [&lost, &leaving, &survivor];
    let (batch, _) = create(&*store, Strategy::RoundRobin, assigned_to(specs(3), &nodes)).await;
    woken(&mut feed, "a batch created").await;

    let claimed = claim(&*store, &lost, 10).await;
    assert_eq!(claimed.len(), 1, "{claimed:?}");
    let params = NodeLeaveParams { node: leaving.id.clone(), token: leaving.token };
    store.node_leave(params).await.expect("leave");
    let handed = partitions_of(&*store, batch.id).await;
    assert_eq!(handed[1].state, PartitionState::Pending);
    assert_ne!(handed[1].node.as_ref(), Some(&leaving.id), "moved off the node that left");
    woken(&mut feed, "a leave that moved a partition").await;

    lose(&*store, &lost, &survivor).await;
    let params = PartitionReassignParams::default();
    let reassigned = store.partition_reassign(params).await.expect("reassign");
    assert!(reassigned.moved.iter().any(|p| p.id == claimed[0].id), "{reassigned:?}");
    woken(&mut feed, "a reassignment that moved a partition").await;
}

/// Waits for the next wake-up of `feed`, if the backend gave one; `after` names what should
/// have sent it.
async fn woken(feed: &mut Option<Box<dyn PendingChanges>>, after: &str) {
    let Some(feed) = feed else { return };
    tokio::time::timeout(PATIENCE, feed.next())
        .await
        .unwrap_or_else(|_| panic!("no wake-up within {PATIENCE:?} after {after}"))
        .expect("the feed works");
}
