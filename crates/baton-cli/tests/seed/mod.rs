//! Records written straight into a SQLite store, for the tests of what the command prints.

use baton::StoreTime;
use baton::core::cluster::{
    AssignedPartition, BatchCreateParams, BatchJob, JsonText, Node, PartitionClaimParams,
    PartitionCompleteParams, PartitionKey, PartitionSpec, Strategy,
};
use baton::core::schedule::JobName;
use baton::core::{Job, JobDefinition, JobPolicy, Schedule};
pub use baton_testkit::seed::{execution, leader, node};

/// A job that fires once, far in the future (its next fire does not move while a test runs).
pub async fn job(backend: &baton::Backend, name: &str) -> Job {
    let at = StoreTime::parse("2099-01-01T00:00:00Z").unwrap();
    let definition = JobDefinition {
        name: job_name(name),
        schedule: Schedule::once(at),
        policy: JobPolicy::default(),
    };
    backend.jobs().job_upsert(definition).await.unwrap()
}

/// A running batch of `job` with partitions `p0` (completed by `node`), `p1` and `p2`
/// (pending).
pub async fn batch(backend: &baton::Backend, job: &str, node: &Node) -> BatchJob {
    let store = backend.cluster();
    let partitions = ["p0", "p1", "p2"]
        .into_iter()
        .map(|key| AssignedPartition {
            spec: PartitionSpec::new(PartitionKey::new(key).unwrap(), JsonText::new("{}").unwrap()),
            node: None,
        })
        .collect();
    let params = BatchCreateParams {
        name: job_name(job),
        strategy: Strategy::FreeForAll,
        stealing: false,
        partitions,
    };
    let batch = store.batch_create(params).await.unwrap();
    let claim = PartitionClaimParams {
        node: node.id.clone(),
        token: node.token,
        limit: 1,
        jobs: Vec::new(),
    };
    let claimed = store.partition_claim(claim).await.unwrap();
    let first = &claimed[0];
    let done = PartitionCompleteParams { id: first.id, token: first.token.unwrap(), result: None };
    store.partition_complete(done).await.unwrap();
    batch
}

fn job_name(name: &str) -> JobName {
    JobName::new(name).unwrap()
}
