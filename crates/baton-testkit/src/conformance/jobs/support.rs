//! Helpers shared by the job-store conformance cases.

use std::time::Duration;

pub(super) use crate::conformance::assert_kind;
use baton_core::job::{
    ClaimParams, Claimed, CompleteParams, Completed, ExecutionListParams, HeartbeatOutcome,
    HeartbeatParams, NewFire, RecordFiresParams, TriggerOutcome, TriggerParams,
};
use baton_core::{
    Execution, ExecutionStatus, FencingToken, FireKey, HolderId, JobDefinition, JobName, JobPolicy,
    JobStore, OverlapPolicy, Schedule, StoreTime, Trigger,
};

/// How old a heartbeat must be before the rescue case abandons its execution. Every other
/// case completes or leaves its running executions well within this.
pub const RESCUE_STALE: Duration = Duration::from_secs(10);

/// How long a case waits for a condition before failing.
pub(super) const PATIENCE: Duration = Duration::from_secs(30);

/// A job name unique to this run, so cases can share one database.
pub fn unique_job(prefix: &str) -> JobName {
    JobName::new(format!("{prefix}-{:016x}", fastrand::u64(..))).expect("valid generated job name")
}

pub(super) fn unique_key(prefix: &str) -> FireKey {
    FireKey::idempotency(&format!("{prefix}-{:016x}", fastrand::u64(..))).expect("valid key")
}

pub(super) fn definition(name: &JobName, policy: JobPolicy) -> JobDefinition {
    let schedule = Schedule::every(Duration::from_secs(60)).expect("valid interval");
    JobDefinition { name: name.clone(), schedule, policy }
}

/// Registers a job of its own for the case.
pub(super) async fn register(store: &dyn JobStore, prefix: &str, policy: JobPolicy) -> JobName {
    let name = unique_job(prefix);
    store.job_upsert(definition(&name, policy)).await.expect("register the job");
    name
}

pub(super) fn allow() -> JobPolicy {
    JobPolicy::default().with_overlap(OverlapPolicy::Allow)
}

pub(super) fn overlap(policy: OverlapPolicy) -> JobPolicy {
    JobPolicy::default().with_overlap(policy)
}

/// A whole second two hours before store time: fires from there on are due.
pub(super) async fn past(store: &dyn JobStore) -> StoreTime {
    let now = store.now().await.expect("store time").as_millis();
    StoreTime::from_millis((now - 2 * 3_600_000) / 1_000 * 1_000)
}

pub(super) fn plus(at: StoreTime, secs: u64) -> StoreTime {
    at.saturating_add(Duration::from_secs(secs))
}

pub(super) fn fire(job: &JobName, at: StoreTime) -> NewFire {
    NewFire { job: job.clone(), scheduled_at: at, due_at: at }
}

/// Records fires and answers how many were inserted.
pub(super) async fn record(store: &dyn JobStore, fires: Vec<NewFire>) -> u64 {
    let params = RecordFiresParams { fires, missed: Vec::new() };
    store.record_fires(params).await.expect("record fires").inserted
}

/// Records fires one call each, so that their ids follow their order.
pub(super) async fn record_each(store: &dyn JobStore, job: &JobName, at: &[StoreTime]) {
    for at in at {
        assert_eq!(record(store, vec![fire(job, *at)]).await, 1, "fire {at} recorded once");
    }
}

pub(super) fn claim_params(node: &HolderId, job: &JobName, limit: u32) -> ClaimParams {
    ClaimParams { node: node.clone(), limit, jobs: vec![job.clone()], ahead: Duration::ZERO }
}

/// Claims the case's due executions of `job`.
pub(super) async fn claim(store: &dyn JobStore, node: &HolderId, job: &JobName) -> Claimed {
    store.claim(claim_params(node, job, 100)).await.expect("claim")
}

/// Claims and expects exactly the executions scheduled at `at` to run, and nothing settled.
pub(super) async fn claim_running(
    store: &dyn JobStore,
    node: &HolderId,
    job: &JobName,
    at: &[StoreTime],
) -> Vec<Execution> {
    let claimed = claim(store, node, job).await;
    assert_eq!(claimed.settled, Vec::new(), "nothing settled");
    let mut running = claimed.running;
    running.sort_by_key(|e| (e.scheduled_at, e.id));
    let times: Vec<StoreTime> = running.iter().map(|e| e.scheduled_at).collect();
    assert_eq!(times, at, "the executions that run");
    for execution in &running {
        assert_eq!(execution.status, ExecutionStatus::Running);
        assert_eq!(execution.node.as_ref(), Some(node));
        assert!(execution.token.is_some(), "a running execution has a token");
    }
    running
}

pub(super) fn token(execution: &Execution) -> FencingToken {
    execution.token.expect("a claimed execution has a token")
}

pub(super) fn complete_params(execution: &Execution, status: ExecutionStatus) -> CompleteParams {
    CompleteParams { id: execution.id, token: token(execution), status, detail: None, output: None }
}

pub(super) async fn complete(
    store: &dyn JobStore,
    execution: &Execution,
    status: ExecutionStatus,
) -> Completed {
    let completed = store.complete(complete_params(execution, status)).await.expect("complete");
    assert_eq!(completed.execution.status, status);
    assert!(completed.execution.finished_at.is_some(), "a completed execution has finished");
    completed
}

pub(super) async fn heartbeat(
    store: &dyn JobStore,
    node: &HolderId,
    executions: &[(i64, FencingToken)],
) -> HeartbeatOutcome {
    let params = HeartbeatParams { node: node.clone(), executions: executions.to_vec() };
    store.heartbeat(params).await.expect("heartbeat")
}

pub(super) async fn get(store: &dyn JobStore, id: i64) -> Execution {
    store.execution_get(id).await.expect("execution_get").expect("the execution exists")
}

/// Every execution of `job`, page by page, ordered by scheduled instant, then attempt.
pub(super) async fn executions(store: &dyn JobStore, job: &JobName) -> Vec<Execution> {
    let mut all = Vec::new();
    let mut after = None;
    loop {
        let params = ExecutionListParams {
            job: Some(job.clone()),
            after,
            limit: 1000,
            ..Default::default()
        };
        let page = store.execution_list(params).await.expect("execution_list");
        all.extend(page.items);
        match page.next {
            Some(cursor) => after = Some(cursor),
            None => break,
        }
    }
    all.sort_by_key(|e| (e.scheduled_at, e.attempt, e.id));
    all
}

/// The execution of `job` scheduled at `at` (its only attempt).
pub(super) async fn at_time(store: &dyn JobStore, job: &JobName, at: StoreTime) -> Execution {
    let matching: Vec<Execution> =
        executions(store, job).await.into_iter().filter(|e| e.scheduled_at == at).collect();
    assert_eq!(matching.len(), 1, "one record of the fire at {at}");
    matching.into_iter().next().expect("one record")
}

pub(super) fn trigger_params(
    job: &JobName,
    key: Option<FireKey>,
    at: Option<StoreTime>,
) -> TriggerParams {
    TriggerParams {
        job: job.clone(),
        fire_key: key,
        scheduled_at: at,
        trigger: Trigger::Manual,
        claim_for: None,
    }
}

pub(super) fn recorded(outcome: TriggerOutcome) -> Execution {
    match outcome {
        TriggerOutcome::Recorded(execution) => execution,
        other => panic!("expected a new execution, got {other:?}"),
    }
}

pub(super) fn existing(outcome: TriggerOutcome) -> Execution {
    match outcome {
        TriggerOutcome::Existing(execution) => execution,
        other => panic!("expected the existing execution, got {other:?}"),
    }
}

/// Waits until store time is past `at`, polling the store's clock.
pub(super) async fn wait_past(store: &dyn JobStore, at: StoreTime) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while store.now().await.expect("store time") <= at {
        assert!(tokio::time::Instant::now() < deadline, "store time never passed {at}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// An empty list of execution ids, typed for comparisons.
pub(super) fn no_ids() -> Vec<i64> {
    Vec::new()
}

pub(super) fn times(executions: &[Execution]) -> Vec<StoreTime> {
    executions.iter().map(|e| e.scheduled_at).collect()
}
