//! Cases on aggregation: a batch finishes once every partition is final.

use baton_core::ClusterStore;
use baton_core::cluster::{
    BatchListParams, BatchState, Partition, PartitionCompleteParams, PartitionFailParams,
    PartitionListParams, PartitionState, Strategy,
};

use super::ClusterHarness;
use super::support::*;

async fn complete(store: &dyn ClusterStore, partition: &Partition, result: &str) {
    let params = PartitionCompleteParams {
        id: partition.id,
        token: token(partition),
        result: Some(json(result)),
    };
    store.partition_complete(params).await.expect("complete");
}

async fn fail(store: &dyn ClusterStore, partition: &Partition, error: &str) {
    let params =
        PartitionFailParams { id: partition.id, token: token(partition), error: error.into() };
    store.partition_fail(params).await.expect("fail");
}

/// A batch stays running while any partition is unfinished and succeeds once every one
/// completed; finishing again changes nothing, and the results stay with the partitions.
pub async fn a_batch_succeeds_once_every_partition_completed(h: &dyn ClusterHarness) {
    let store = h.store().await;
    let node = register(&*store, "node").await;
    let (batch, _) = create(&*store, Strategy::RoundRobin, assigned_to(specs(3), &[&node])).await;
    assert_eq!(
        (batch.state, batch.finished_at, batch.failure.clone()),
        (BatchState::Running, None, None)
    );
    assert_eq!(
        store.batch_finish(batch.id).await.expect("batch_finish"),
        batch,
        "nothing claimed yet"
    );

    let claimed = claim(&*store, &node, 10).await;
    complete(&*store, &claimed[0], "0").await;
    complete(&*store, &claimed[1], "1").await;
    assert_eq!(store.batch_finish(batch.id).await.expect("batch_finish"), batch, "one still runs");
    complete(&*store, &claimed[2], "2").await;

    let finished = store.batch_finish(batch.id).await.expect("batch_finish");
    assert_eq!((finished.state, finished.failure.clone()), (BatchState::Succeeded, None));
    assert!(finished.finished_at.is_some_and(|at| at >= batch.created_at));
    assert_eq!(
        store.batch_finish(batch.id).await.expect("batch_finish"),
        finished,
        "finished once"
    );
    assert_eq!(store.batch_get(batch.id).await.expect("batch_get"), Some(finished));
    let results: Vec<Option<String>> = partitions_of(&*store, batch.id)
        .await
        .into_iter()
        .map(|p| p.result.map(|r| r.as_str().to_owned()))
        .collect();
    assert_eq!(results, [Some("0".into()), Some("1".into()), Some("2".into())]);
}

/// A batch whose partitions are all final with some failed fails, naming the failed ones
/// with the first line of their errors; they can be listed by state.
pub async fn a_batch_fails_listing_its_failed_partitions(h: &dyn ClusterHarness) {
    let store = h.store().await;
    let node = register(&*store, "node").await;
    let (batch, _) = create(
        &*store,
        Strategy::FixedNodeCount(3.try_into().expect("nonzero")),
        assigned_to(specs(4), &[&node]),
    )
    .await;
    let claimed = claim(&*store, &node, 10).await;
    complete(&*store, &claimed[0], "{}").await;
    fail(&*store, &claimed[1], "boom 1").await;
    fail(&*store, &claimed[2], "boom 2\n  at step 3").await;
    assert_eq!(
        store.batch_finish(batch.id).await.expect("batch_finish").state,
        BatchState::Running
    );
    complete(&*store, &claimed[3], "{}").await;

    let finished = store.batch_finish(batch.id).await.expect("batch_finish");
    assert_eq!(finished.state, BatchState::Failed);
    assert_eq!(finished.failure.as_deref(), Some("2 partitions failed: p1 (boom 1), p2 (boom 2)"));
    assert!(finished.finished_at.is_some());

    let params = PartitionListParams {
        state: Some(PartitionState::Failed),
        ..PartitionListParams::new(batch.id)
    };
    let failed = store.partition_list(params).await.expect("partition_list").items;
    let errors: Vec<(&str, Option<&str>)> =
        failed.iter().map(|p| (p.key.as_str(), p.error.as_deref())).collect();
    assert_eq!(errors, [("p1", Some("boom 1")), ("p2", Some("boom 2\n  at step 3"))]);
    let params = BatchListParams {
        name: Some(batch.name.clone()),
        state: Some(BatchState::Failed),
        ..Default::default()
    };
    let listed = store.batch_list(params).await.expect("batch_list").items;
    assert_eq!(listed, [finished]);
}
