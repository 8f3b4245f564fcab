//! The cluster-store conformance suite against the SQLite backend, and what only SQLite
//! promises: node and partition tokens come from the lease counter, and JSON text is kept
//! byte for byte.
//!
//! Every case gets a database file of its own, and every `store()` call opens a separate
//! backend (its own pools) on it, as separate processes would.

use std::time::Duration;

use baton_core::cluster::{
    AssignedPartition, BatchCreateParams, JsonText, NodeRegisterParams, PartitionCheckpointParams,
    PartitionClaimParams, PartitionKey, PartitionListParams, PartitionSpec, Strategy,
};
use baton_core::{AcquireOutcome, AcquireParams, ClusterStore, FencingToken, JobName, LeaseStore};
use baton_testkit::conformance::cluster::unique_node;
use baton_testkit::conformance::{unique_holder, unique_name};
use baton_testkit::databases::SqliteFile;

baton_testkit::cluster_conformance!(SqliteFile::new());

async fn acquire_token(leases: &dyn LeaseStore) -> FencingToken {
    let params = AcquireParams {
        name: unique_name("shared"),
        holder: unique_holder("holder"),
        ttl: Duration::from_secs(30),
    };
    match leases.acquire(params).await.expect("acquire") {
        AcquireOutcome::Acquired { lease, .. } => lease.token,
        other => panic!("a fresh lease must be granted, got {other:?}"),
    }
}

fn registration() -> NodeRegisterParams {
    NodeRegisterParams {
        id: unique_node("node"),
        host: "host".into(),
        version: "1".into(),
        load: 0,
    }
}

fn one_partition(params: &str) -> BatchCreateParams {
    let key = PartitionKey::new("p0").expect("key");
    let spec = PartitionSpec::new(key, JsonText::new(params).expect("JSON text"));
    BatchCreateParams {
        name: JobName::new("sqlite-only").expect("name"),
        strategy: Strategy::FreeForAll,
        stealing: false,
        partitions: vec![AssignedPartition { spec, node: None }],
    }
}

/// Lease grants, registrations and partition claims draw from one counter: their tokens never
/// collide and keep growing across all three.
#[tokio::test]
async fn node_partition_and_lease_tokens_share_one_counter() {
    let db = SqliteFile::new();
    let (cluster, leases) = (db.backend().await.cluster(), db.backend().await.leases());

    let first = acquire_token(&leases).await;
    let node = cluster.node_register(registration()).await.expect("register");
    assert!(node.token > first, "registration token {} after lease token {first}", node.token);
    cluster.batch_create(one_partition("{}")).await.expect("create");
    let claim = PartitionClaimParams { node: node.id, token: node.token, limit: 10, jobs: vec![] };
    let claimed = cluster.partition_claim(claim).await.expect("claim");
    let token = claimed[0].token.expect("a claimed partition has a token");
    assert!(token > node.token, "claim token {token} after registration token {}", node.token);
    let last = acquire_token(&leases).await;
    assert!(last > token, "lease token {last} after claim token {token}");
}

/// Parameters and checkpoints travel through JSON arrays on their way in; they still read
/// back byte for byte, whatever characters they hold.
#[tokio::test]
async fn json_text_reads_back_byte_for_byte() {
    let db = SqliteFile::new();
    let cluster = db.backend().await.cluster();
    let odd = "{ \"q\": \"\\\"\\\\\", \"raw\": \"\t\r\n\u{0}\u{1f}\u{7f}\", \"ü\": \"✓ 𝄞\" }";
    let node = cluster.node_register(registration()).await.expect("register");
    let batch = cluster.batch_create(one_partition(odd)).await.expect("create");
    let claim = PartitionClaimParams { node: node.id, token: node.token, limit: 1, jobs: vec![] };
    let claimed = cluster.partition_claim(claim).await.expect("claim").remove(0);
    assert_eq!(claimed.params.as_str(), odd);
    let checkpoint = PartitionCheckpointParams {
        id: claimed.id,
        token: claimed.token.expect("claimed"),
        checkpoint: JsonText::new(odd).expect("JSON text"),
        progress: 1,
    };
    cluster.partition_checkpoint(checkpoint).await.expect("checkpoint");
    let read = cluster.partition_list(PartitionListParams::new(batch.id)).await.expect("list");
    let stored = &read.items[0];
    assert_eq!(stored.params.as_str(), odd);
    assert_eq!(stored.checkpoint.as_ref().map(JsonText::as_str), Some(odd));
}
