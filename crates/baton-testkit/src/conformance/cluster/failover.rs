//! Cases on failover: the partitions of an unreachable node move to live nodes and resume
//! from their checkpoint under a greater token, or fail when they cannot move (I7).

use baton_core::cluster::{
    PartitionCompleteParams, PartitionReassignParams, PartitionState, Reassigned, Strategy,
};
use baton_core::{ClusterStore, ErrorKind};

use super::ClusterHarness;
use super::support::*;

async fn reassign(store: &dyn ClusterStore) -> Reassigned {
    store.partition_reassign(PartitionReassignParams::default()).await.expect("reassign")
}

/// Once a node is unreachable, its claimed transferable partitions go back to pending on a
/// live node (a free-for-all one unassigned) keeping their checkpoint; the lost node can no
/// longer write them, and the next claim resumes from the checkpoint under a greater token.
pub async fn reassignment_keeps_the_checkpoint_and_issues_a_greater_token(h: &dyn ClusterHarness) {
    let store = h.store().await;
    let lost = register(&*store, "lost").await;
    let (batch, _) = create(&*store, Strategy::RoundRobin, assigned_to(specs(2), &[&lost])).await;
    let (free, _) = create(&*store, Strategy::FreeForAll, assigned_to(specs(1), &[])).await;
    let claimed = claim(&*store, &lost, 10).await;
    assert_eq!(claimed.len(), 3, "{claimed:?}");
    let saved = r#"{"line":5000}"#;
    store
        .partition_checkpoint(checkpoint_params(&claimed[0], saved, 5000))
        .await
        .expect("checkpoint");
    let survivor = register(&*store, "survivor").await;
    let highest = claimed.iter().map(token).max().into_iter().chain([survivor.token]).max();
    lose(&*store, &lost, &survivor).await;

    let reassigned = reassign(&*store).await;
    assert_eq!(reassigned.failed, Vec::new());
    let moved: Vec<(i64, i64, PartitionState, Option<&str>)> = reassigned
        .moved
        .iter()
        .map(|p| (p.id, p.batch, p.state, p.node.as_ref().map(|n| n.as_str())))
        .collect();
    let to_survivor = Some(survivor.id.as_str());
    let pending = PartitionState::Pending;
    assert_eq!(
        moved,
        [
            (claimed[0].id, batch.id, pending, to_survivor),
            (claimed[1].id, batch.id, pending, to_survivor),
            (claimed[2].id, free.id, pending, None),
        ]
    );
    assert_eq!(
        (reassigned.moved[0].checkpoint.clone(), reassigned.moved[0].progress),
        (Some(json(saved)), 5000)
    );

    let late = store.partition_checkpoint(checkpoint_params(&claimed[0], "{}", 6000)).await;
    assert_kind(late, ErrorKind::LeaseLost, "a checkpoint by the lost node");
    let done =
        PartitionCompleteParams { id: claimed[1].id, token: token(&claimed[1]), result: None };
    assert_kind(
        store.partition_complete(done).await,
        ErrorKind::LeaseLost,
        "a completion by the lost node",
    );
    assert_eq!(reassign(&*store).await, Reassigned::default(), "nothing is left to move");

    let resumed = claim(&*store, &survivor, 10).await;
    let ids: Vec<i64> = resumed.iter().map(|p| p.id).collect();
    assert_eq!(ids, claimed.iter().map(|p| p.id).collect::<Vec<_>>());
    for partition in &resumed {
        assert!(
            Some(token(partition)) > highest,
            "a resumed claim's token is greater than any before"
        );
        assert_eq!(partition.attempts, 2);
    }
    assert_eq!((resumed[0].checkpoint.clone(), resumed[0].progress), (Some(json(saved)), 5000));
}

/// A claimed partition that is not transferable fails with the reason when its node is lost,
/// and its batch fails naming it; one only assigned to the lost node moves, as its work never
/// started.
pub async fn a_claimed_partition_that_cannot_move_fails_its_batch(h: &dyn ClusterHarness) {
    let store = h.store().await;
    let lost = register(&*store, "lost").await;
    let specs: Vec<_> = specs(2).into_iter().map(|s| s.with_transferable(false)).collect();
    let (batch, _) = create(&*store, Strategy::LeastLoaded, assigned_to(specs, &[&lost])).await;
    let started = claim(&*store, &lost, 1).await.remove(0);
    let survivor = register(&*store, "survivor").await;
    lose(&*store, &lost, &survivor).await;

    let reassigned = reassign(&*store).await;
    assert_eq!(reassigned.failed.len(), 1, "{reassigned:?}");
    let failed = &reassigned.failed[0];
    assert_eq!((failed.id, failed.state), (started.id, PartitionState::Failed));
    assert!(failed.finished_at.is_some());
    let reason = failed.error.clone().unwrap_or_default();
    assert!(reason.starts_with(&format!("node {} ", lost.id)), "{reason}");
    assert!(reason.ends_with("; partition p0 is not transferable"), "{reason}");
    let moved: Vec<(&str, Option<&str>)> = reassigned
        .moved
        .iter()
        .map(|p| (p.key.as_str(), p.node.as_ref().map(|n| n.as_str())))
        .collect();
    assert_eq!(moved, [("p1", Some(survivor.id.as_str()))]);

    let last = claim(&*store, &survivor, 10).await.remove(0);
    let done = PartitionCompleteParams { id: last.id, token: token(&last), result: None };
    store.partition_complete(done).await.expect("complete");
    let finished = store.batch_finish(batch.id).await.expect("batch_finish");
    assert_eq!(finished.state, baton_core::cluster::BatchState::Failed);
    assert_eq!(finished.failure, Some(format!("1 partition failed: p0 ({reason})")));
}
