//! The job-store conformance suite against the SQLite backend, and what only SQLite promises:
//! execution tokens come from the lease counter, and wake-ups cross backends (processes).
//!
//! Every `store()` call opens a separate backend (its own pools and notifier) on one database
//! file, as separate processes would.

use std::time::Duration;

use baton_core::job::{ClaimParams, NewFire, RecordFiresParams};
use baton_core::{
    AcquireOutcome, AcquireParams, ExecutionStatus, FencingToken, JobDefinition, JobName,
    JobPolicy, JobStore, LeaseStore, OverlapPolicy, Schedule, StoreTime,
};
use baton_testkit::conformance::jobs::unique_job;
use baton_testkit::conformance::{unique_holder, unique_name};
use baton_testkit::databases::SqliteFile;

baton_testkit::job_conformance!(SqliteFile::new());

async fn register(store: &dyn JobStore, prefix: &str) -> JobName {
    let name = unique_job(prefix);
    let definition = JobDefinition {
        name: name.clone(),
        schedule: Schedule::every(Duration::from_secs(60)).unwrap(),
        policy: JobPolicy::default().with_overlap(OverlapPolicy::Allow),
    };
    store.job_upsert(definition).await.expect("register");
    name
}

async fn record_due_fire(store: &dyn JobStore, job: &JobName) {
    let at = StoreTime::from_millis(store.now().await.unwrap().as_millis() - 60_000);
    let fires = vec![NewFire { job: job.clone(), scheduled_at: at, due_at: at }];
    let params = RecordFiresParams { fires, missed: Vec::new() };
    assert_eq!(store.record_fires(params).await.unwrap().inserted, 1);
}

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

/// Lease grants and execution claims draw from one counter: their tokens never collide and
/// keep growing across both.
#[tokio::test]
async fn execution_and_lease_tokens_share_one_counter() {
    let db = SqliteFile::new();
    let backend = db.backend().await;
    let (jobs, leases) = (backend.jobs(), db.backend().await.leases());
    let job = register(&jobs, "tokens").await;
    let node = unique_holder("node");

    let before = acquire_token(&leases).await;
    record_due_fire(&jobs, &job).await;
    let params = ClaimParams {
        node: node.clone(),
        limit: 10,
        jobs: vec![job.clone()],
        ahead: Duration::ZERO,
    };
    let claimed = jobs.claim(params).await.expect("claim");
    let execution = claimed.running.first().expect("the due fire runs");
    let token = execution.token.expect("a running execution has a token");
    assert!(token > before, "execution token {token} after lease token {before}");
    let after = acquire_token(&leases).await;
    assert!(after > token, "lease token {after} after execution token {token}");
}

/// A fire recorded through one backend wakes a subscriber of another backend on the same
/// file, as it would a worker in another process; a claim through a third sees it.
#[tokio::test]
async fn recorded_fires_wake_workers_of_other_backends() {
    let db = SqliteFile::new();
    let (leader, worker) = (db.backend().await.jobs(), db.backend().await.jobs());
    let mut due = worker.subscribe_due().await.unwrap().expect("SQLite notifies");
    let mut releases = db.backend().await.leases().subscribe().await.unwrap().expect("notifies");
    let job = register(&leader, "wake").await;
    record_due_fire(&leader, &job).await;
    tokio::time::timeout(Duration::from_secs(10), due.next())
        .await
        .expect("the worker is woken")
        .expect("the feed works");
    let stray = tokio::time::timeout(Duration::from_millis(200), releases.next()).await;
    assert!(stray.is_err(), "lease waiters never see due wake-ups: {stray:?}");

    let params = ClaimParams {
        node: unique_holder("node"),
        limit: 10,
        jobs: vec![job],
        ahead: Duration::ZERO,
    };
    let claimed = db.backend().await.jobs().claim(params).await.expect("claim");
    assert_eq!(claimed.running.len(), 1);
    assert_eq!(claimed.running[0].status, ExecutionStatus::Running);
}
