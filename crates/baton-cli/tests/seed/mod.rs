//! Records written straight into a SQLite store, for the tests of what the command prints.

use std::time::Duration;

use baton::core::cluster::{
    AssignedPartition, BatchCreateParams, BatchJob, JsonText, Node, NodeId, NodeRegisterParams,
    PartitionClaimParams, PartitionCompleteParams, PartitionKey, PartitionSpec, Strategy,
};
use baton::core::job::{CompleteParams, TriggerOutcome, TriggerParams};
use baton::core::schedule::JobName;
use baton::core::{
    AcquireOutcome, AcquireParams, Execution, ExecutionStatus, Job, JobDefinition, JobPolicy,
    Schedule, Trigger,
};
use baton::{HolderId, LeaseName, StoreTime};

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

/// An execution of `job` run by `node-a` and finished with `status` and `output`.
pub async fn execution(
    backend: &baton::Backend,
    job: &str,
    key: &str,
    status: ExecutionStatus,
    output: Option<&str>,
) -> Execution {
    let store = backend.jobs();
    let params = TriggerParams {
        job: job_name(job),
        fire_key: Some(baton::core::FireKey::idempotency(key).unwrap()),
        scheduled_at: None,
        trigger: Trigger::External,
        claim_for: Some(HolderId::new("node-a").unwrap()),
    };
    let TriggerOutcome::Recorded(running) = store.trigger(params).await.unwrap() else {
        panic!("expected a new execution");
    };
    let complete = CompleteParams {
        id: running.id,
        token: running.token.unwrap(),
        status,
        detail: Some(format!("{status:?}")),
        output: output.map(str::to_string),
    };
    store.complete(complete).await.unwrap().execution
}

/// Registers node `id`.
pub async fn node(backend: &baton::Backend, id: &str) -> Node {
    let params = NodeRegisterParams {
        id: NodeId::new(id).unwrap(),
        host: format!("host-{id}"),
        version: "1.0.0".into(),
        load: 0,
    };
    backend.cluster().node_register(params).await.unwrap()
}

/// `holder` acquires `lease` for a minute.
pub async fn leader(backend: &baton::Backend, lease: &str, holder: &str) {
    let params = AcquireParams {
        name: LeaseName::new(lease).unwrap(),
        holder: HolderId::new(holder).unwrap(),
        ttl: Duration::from_secs(60),
    };
    let outcome = backend.leases().acquire(params).await.unwrap();
    assert!(matches!(outcome, AcquireOutcome::Acquired { .. }), "{outcome:?}");
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
    let params =
        BatchCreateParams { name: job_name(job), strategy: Strategy::FreeForAll, partitions };
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
