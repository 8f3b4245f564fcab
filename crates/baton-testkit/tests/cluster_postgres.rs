//! The cluster-store conformance suite against a throwaway PostgreSQL server, one server (and
//! so one fresh database) per case, since sweeps and reassignments act on every node of a
//! store; plus what only a real server can show: every write is one transaction, and a claim
//! that commits while its node registers again is rehomed by the next reassignment.

use std::time::Duration;

use baton_core::cluster::{
    AssignedPartition, BatchCreateParams, JsonText, Node, NodeHeartbeatParams, NodeId,
    NodeLeaveParams, NodeRegisterParams, NodeSweepParams, Partition, PartitionBeat,
    PartitionCheckpointParams, PartitionClaimParams, PartitionKey, PartitionListParams,
    PartitionReassignParams, PartitionSpec, PartitionState, Strategy,
};
use baton_core::{ClusterStore, ErrorKind, JobName};
use baton_testkit::conformance::cluster::{ClusterHarness, thresholds, unique_node};
use baton_testkit::databases::PostgresDatabase;
use sqlx::PgConnection;

baton_testkit::cluster_conformance!(PostgresDatabase::start());

fn registration(id: &NodeId) -> NodeRegisterParams {
    NodeRegisterParams { id: id.clone(), host: "host".into(), version: "1".into(), load: 0 }
}

/// A batch with a partition for each of `transferable`, all assigned to `node` (`None`: to no
/// one).
fn batch(strategy: Strategy, node: Option<&NodeId>, transferable: &[bool]) -> BatchCreateParams {
    let partitions = transferable
        .iter()
        .enumerate()
        .map(|(i, transferable)| {
            let key = PartitionKey::new(format!("p{i}")).expect("valid key");
            let params = JsonText::new(format!("{{\"n\":{i}}}")).expect("valid JSON");
            let spec = PartitionSpec::new(key, params).with_transferable(*transferable);
            AssignedPartition { spec, node: node.cloned() }
        })
        .collect();
    let name = JobName::new(format!("batch-{:016x}", fastrand::u64(..))).expect("valid name");
    BatchCreateParams { name, strategy, stealing: false, partitions }
}

fn claim_params(node: &Node, limit: u32) -> PartitionClaimParams {
    PartitionClaimParams { node: node.id.clone(), token: node.token, limit, jobs: Vec::new() }
}

async fn partitions(store: &dyn ClusterStore, batch: i64) -> Vec<Partition> {
    let params = PartitionListParams { limit: 1000, ..PartitionListParams::new(batch) };
    store.partition_list(params).await.expect("partition_list").items
}

/// The transaction id the server would hand out next, read in a transaction of its own (which
/// takes one).
async fn next_xid(admin: &mut PgConnection) -> i64 {
    sqlx::query_scalar("SELECT pg_current_xact_id()::TEXT::BIGINT")
        .fetch_one(admin)
        .await
        .expect("read the transaction counter")
}

/// How many transactions `write` commits, counted on the server's transaction counter.
async fn transactions<T>(admin: &mut PgConnection, write: impl Future<Output = T>) -> (T, i64) {
    let before = next_xid(admin).await;
    let answer = write.await;
    let after = next_xid(admin).await;
    (answer, after - before - 1)
}

/// Registration, heartbeats, claims, checkpoints, leaving, sweeping, reassigning and creating a
/// batch are each one transaction, however many partitions they touch.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_write_is_one_transaction() {
    let harness = PostgresDatabase::start();
    let store = harness.store().await;
    let mut admin = harness.admin().await;
    harness.autovacuum_off().await;
    let id = unique_node("one-tx");
    let other = store.node_register(registration(&unique_node("other"))).await.unwrap();

    let (node, count) = transactions(&mut admin, store.node_register(registration(&id))).await;
    let node = node.unwrap();
    assert_eq!(count, 1, "a first registration");
    let params = batch(Strategy::RoundRobin, Some(&id), &[true; 100]);
    let (created, count) = transactions(&mut admin, store.batch_create(params)).await;
    let created = created.unwrap();
    assert_eq!(count, 1, "a batch of 100 partitions");
    let (claimed, count) =
        transactions(&mut admin, store.partition_claim(claim_params(&node, 50))).await;
    let claimed = claimed.unwrap();
    assert_eq!((claimed.len(), count), (50, 1), "a claim of 50");

    let beats =
        claimed.iter().map(|p| PartitionBeat { id: p.id, token: p.token.unwrap(), progress: 1 });
    let beat = NodeHeartbeatParams {
        node: id.clone(),
        token: node.token,
        load: 50,
        partitions: beats.collect(),
    };
    let (outcome, count) = transactions(&mut admin, store.node_heartbeat(beat)).await;
    assert_eq!((outcome.unwrap().lost, count), (Vec::new(), 1), "a heartbeat of 50 partitions");
    let saved = PartitionCheckpointParams {
        id: claimed[0].id,
        token: claimed[0].token.unwrap(),
        checkpoint: JsonText::new("{}").unwrap(),
        progress: 2,
    };
    let (saved, count) = transactions(&mut admin, store.partition_checkpoint(saved)).await;
    assert_eq!((saved.unwrap().progress, count), (2, 1), "a checkpoint");

    let (again, count) = transactions(&mut admin, store.node_register(registration(&id))).await;
    assert_eq!(count, 1, "a registration that rehomes 50 claimed partitions");
    let leave = NodeLeaveParams { node: id.clone(), token: again.unwrap().token };
    let (_, count) = transactions(&mut admin, store.node_leave(leave)).await;
    assert_eq!(count, 1, "a leave that rehomes 100 partitions");
    let moved = partitions(&*store, created.id).await;
    assert!(
        moved.iter().all(|p| p.node.as_ref() == Some(&other.id)),
        "all moved to the other node"
    );

    let ghost = unique_node("never-registered");
    store.batch_create(batch(Strategy::RoundRobin, Some(&ghost), &[true; 100])).await.unwrap();
    let reassign = store.partition_reassign(PartitionReassignParams::default());
    let (reassigned, count) = transactions(&mut admin, reassign).await;
    assert_eq!((reassigned.unwrap().moved.len(), count), (100, 1), "a reassignment of 100");
    let sweep = NodeSweepParams { thresholds: thresholds() };
    let (_, count) = transactions(&mut admin, store.node_sweep(sweep)).await;
    assert!(count <= 1, "a sweep is at most one transaction");
}

/// A claim that commits while its node registers again (after the registration's snapshot,
/// before it locks the node) keeps its tokens, all older than the new incarnation's; the next
/// reassignment rehomes those partitions as the registration would have, and their old claims
/// are fenced.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_claim_racing_a_registration_is_rehomed_by_the_next_reassignment() {
    let harness = PostgresDatabase::start();
    let store = harness.store().await;
    let old = store.node_register(registration(&unique_node("racing"))).await.unwrap();
    let created = store.batch_create(batch(Strategy::FreeForAll, None, &[true, false])).await;
    let created = created.unwrap();

    // Another session holds the node's record as a claim does, so the registration takes its
    // snapshot and then waits for the record.
    let mut holder = harness.admin().await;
    sqlx::query("BEGIN").execute(&mut holder).await.unwrap();
    sqlx::query("SELECT 1 FROM baton_nodes WHERE id = $1 FOR SHARE")
        .bind(old.id.as_str())
        .execute(&mut holder)
        .await
        .unwrap();
    let registering = {
        let (store, id) = (harness.store().await, old.id.clone());
        tokio::spawn(async move { store.node_register(registration(&id)).await })
    };
    let mut watcher = harness.admin().await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let waiting: i64 = sqlx::query_scalar("SELECT count(*) FROM pg_locks WHERE NOT granted")
            .fetch_one(&mut watcher)
            .await
            .unwrap();
        if waiting > 0 {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "the registration never waited");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let claimed = store.partition_claim(claim_params(&old, 10)).await.unwrap();
    assert_eq!(claimed.len(), 2, "the claim shares the record and commits");
    sqlx::query("ROLLBACK").execute(&mut holder).await.unwrap();
    let new = registering.await.unwrap().unwrap();

    let stale = partitions(&*store, created.id).await;
    for partition in &stale {
        assert_eq!(partition.state, PartitionState::Claimed, "not seen by the registration");
        assert!(partition.token.unwrap() < new.token, "claimed before the new incarnation");
    }
    let reassigned = store.partition_reassign(PartitionReassignParams::default()).await.unwrap();
    let moved: Vec<(i64, PartitionState, Option<&NodeId>)> =
        reassigned.moved.iter().map(|p| (p.id, p.state, p.node.as_ref())).collect();
    assert_eq!(moved, [(claimed[0].id, PartitionState::Pending, None)]);
    let failed: Vec<(i64, Option<&str>)> =
        reassigned.failed.iter().map(|p| (p.id, p.error.as_deref())).collect();
    let reason = format!(
        "node {} registered again as a new incarnation; partition p1 is not transferable",
        old.id
    );
    assert_eq!(failed, [(claimed[1].id, Some(reason.as_str()))]);

    let late = PartitionCheckpointParams {
        id: claimed[0].id,
        token: claimed[0].token.unwrap(),
        checkpoint: JsonText::new("{}").unwrap(),
        progress: 1,
    };
    let err = store.partition_checkpoint(late).await.expect_err("the old claim is fenced");
    assert_eq!(err.kind(), ErrorKind::LeaseLost);
    let resumed = store.partition_claim(claim_params(&new, 10)).await.unwrap();
    assert_eq!(resumed.iter().map(|p| p.id).collect::<Vec<_>>(), [claimed[0].id]);
}
