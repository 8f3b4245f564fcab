//! The cluster-store conformance suite against a throwaway MariaDB server, one server (and so
//! one fresh database) per case, since sweeps and reassignments act on every node of a store;
//! plus what only a real server can show: a claim passes over a partition another session has
//! locked instead of waiting for it, claim tokens keep growing after the server is killed
//! and restarted, and pending wake-ups reach an idle node of another backend.

use std::time::Duration;

use baton_core::cluster::{
    AssignedPartition, BatchCreateParams, JsonText, Node, NodeRegisterParams, Partition,
    PartitionClaimParams, PartitionKey, PartitionListParams, PartitionSpec, Strategy,
};
use baton_core::{ClusterStore, JobName};
use baton_testkit::conformance::cluster::{ClusterHarness, unique_node};
use baton_testkit::databases::MariadbDatabase;
use sqlx::Connection;

baton_testkit::cluster_conformance!(MariadbDatabase::start());

async fn register(store: &dyn ClusterStore, prefix: &str) -> Node {
    let id = unique_node(prefix);
    let params = NodeRegisterParams { id, host: "host".into(), version: "1".into(), load: 0 };
    store.node_register(params).await.expect("register")
}

/// Creates a free-for-all batch of `count` partitions and answers them, by id.
async fn free_batch(store: &dyn ClusterStore, count: usize) -> Vec<Partition> {
    let partitions = (0..count)
        .map(|i| {
            let key = PartitionKey::new(format!("p{i}")).expect("valid key");
            let spec = PartitionSpec::new(key, JsonText::new("{}").expect("valid JSON"));
            AssignedPartition { spec, node: None }
        })
        .collect();
    let name = JobName::new(format!("batch-{:016x}", fastrand::u64(..))).expect("valid name");
    let params =
        BatchCreateParams { name, strategy: Strategy::FreeForAll, stealing: false, partitions };
    let batch = store.batch_create(params).await.expect("create the batch");
    let list = PartitionListParams { limit: 1000, ..PartitionListParams::new(batch.id) };
    store.partition_list(list).await.expect("partition_list").items
}

async fn claim(store: &dyn ClusterStore, node: &Node) -> Vec<Partition> {
    let params =
        PartitionClaimParams { node: node.id.clone(), token: node.token, limit: 10, jobs: vec![] };
    store.partition_claim(params).await.expect("claim")
}

fn ids(partitions: &[Partition]) -> Vec<i64> {
    partitions.iter().map(|p| p.id).collect()
}

/// A partition another session holds locked is passed over (SKIP LOCKED), not waited for, and
/// claimed by the next claim once that session lets go of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_passes_over_a_partition_another_session_holds() {
    let harness = MariadbDatabase::start();
    let store = harness.store().await;
    let node = register(&*store, "skipper").await;
    let partitions = free_batch(&*store, 2).await;

    let mut admin = harness.admin().await;
    let mut holder = admin.begin().await.expect("begin");
    sqlx::query("SELECT id FROM baton_partitions WHERE id = ? FOR UPDATE")
        .bind(partitions[0].id)
        .fetch_one(&mut *holder)
        .await
        .expect("lock the first partition");
    let first = claim(&*store, &node).await;
    assert_eq!(ids(&first), [partitions[1].id], "the locked partition is passed over");

    holder.rollback().await.expect("rollback");
    let second = claim(&*store, &node).await;
    assert_eq!(ids(&second), [partitions[0].id], "claimed once it is free");
    assert!(second[0].token > first[0].token);
}

/// Registration and claim tokens come from a counter row, not from AUTO_INCREMENT: after the
/// server is killed and restarted, every token issued is greater than any issued before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claim_tokens_keep_growing_after_the_server_is_killed_and_restarted() {
    let harness = MariadbDatabase::start();
    let backend = harness.backend().await;
    let store = backend.cluster();
    let node = register(&store, "crash").await;
    free_batch(&store, 1).await;
    let before = claim(&store, &node).await.pop().expect("a claim").token;
    backend.close().await;

    harness.server().process().kill();
    assert!(!harness.server().process().is_running());
    harness.server().process().restart();

    let store = harness.store().await;
    let again = register(&*store, "after").await;
    assert!(Some(again.token) > before, "registration token {} after {before:?}", again.token);
    free_batch(&*store, 1).await;
    let later = claim(&*store, &again).await.pop().expect("a claim").token;
    assert!(later > Some(again.token), "claim token {later:?} after {}", again.token);
}

/// Three backends, as three processes would be: the keeper created a batch first and keeps the
/// pending bell's lock, so its next batch wakes the idle node of a third backend at once,
/// through the lock. A batch from a backend that does not keep the lock wakes that node all the
/// same, at its next read of the counter: within the feed's 10 s wait period, waited for here
/// with room to spare.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_from_the_keeper_and_from_another_backend_wake_a_third_backend() {
    let harness = MariadbDatabase::start();
    let keeper = harness.backend().await.cluster();
    let other = harness.backend().await.cluster();
    let idle = harness.backend().await.cluster();
    free_batch(&keeper, 1).await;

    let mut feed = idle.subscribe_pending().await.expect("subscribe").expect("MySQL notifies");
    free_batch(&keeper, 1).await;
    tokio::time::timeout(Duration::from_secs(5), feed.next())
        .await
        .expect("no prompt wake-up from the keeper's batch")
        .expect("the feed works");

    free_batch(&other, 1).await;
    tokio::time::timeout(Duration::from_secs(30), feed.next())
        .await
        .expect("no wake-up from the batch of a backend that does not keep the lock")
        .expect("the feed works");
}
