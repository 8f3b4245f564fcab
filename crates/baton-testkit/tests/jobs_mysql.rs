//! The job-store conformance suite and its racing-claimers cases against a throwaway MariaDB
//! server, plus what only a real server can show: due wake-ups reaching an idle worker of another backend, from the backend
//! that keeps the due bell's lock and from one that does not.

use std::time::Duration;

use baton_core::job::{ClaimParams, NewFire, RecordFiresParams};
use baton_core::{JobDefinition, JobName, JobPolicy, JobStore, OverlapPolicy, Schedule, StoreTime};
use baton_testkit::conformance::jobs::unique_job;
use baton_testkit::conformance::unique_holder;
use baton_testkit::databases::MariadbDatabase;

baton_testkit::job_conformance!(MariadbDatabase::start());
baton_testkit::job_race_conformance!(MariadbDatabase::start());

async fn register(store: &dyn JobStore, prefix: &str, overlap: OverlapPolicy) -> JobName {
    let name = unique_job(prefix);
    let definition = JobDefinition {
        name: name.clone(),
        schedule: Schedule::every(Duration::from_secs(1)).expect("valid interval"),
        policy: JobPolicy::default().with_overlap(overlap),
    };
    store.job_upsert(definition).await.expect("register");
    name
}

/// Whole seconds two hours before store time.
async fn past(store: &dyn JobStore) -> StoreTime {
    let now = store.now().await.expect("store time").as_millis();
    StoreTime::from_millis((now - 7_200_000) / 1_000 * 1_000)
}

fn fire(job: &JobName, at: StoreTime) -> NewFire {
    NewFire { job: job.clone(), scheduled_at: at, due_at: at }
}

/// An idle worker on one backend learns at once that another backend (another process, as
/// far as the server can tell) recorded a due fire: the recording backend keeps the due
/// bell's lock since its first ring, and its next ring wakes the worker's blocked wait. Only a
/// ring through the server can reach the worker here: the two backends share nothing in
/// process. The wait is on the feed, with a timeout of half the feed's 10 s wait period.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_due_fire_wakes_an_idle_worker_of_another_backend() {
    let harness = MariadbDatabase::start();
    let leader = harness.backend().await.jobs();
    let worker = harness.backend().await.jobs();
    let job = register(&leader, "doorbell", OverlapPolicy::Allow).await;
    let base = past(&leader).await;
    let first = RecordFiresParams { fires: vec![fire(&job, base)], missed: Vec::new() };
    assert_eq!(leader.record_fires(first).await.expect("record").inserted, 1);

    let mut feed = worker.subscribe_due().await.expect("subscribe").expect("MySQL notifies");
    let later = base.saturating_add(Duration::from_secs(1));
    let second = RecordFiresParams { fires: vec![fire(&job, later)], missed: Vec::new() };
    assert_eq!(leader.record_fires(second).await.expect("record").inserted, 1);
    tokio::time::timeout(Duration::from_secs(5), feed.next())
        .await
        .expect("no wake-up from the other backend's ring")
        .expect("the feed works");

    let node = unique_holder("worker");
    let params = ClaimParams { node, limit: 10, jobs: vec![job.clone()], ahead: Duration::ZERO };
    let claimed = worker.claim(params).await.expect("claim");
    assert_eq!(claimed.running.len(), 2, "both due fires run: {claimed:?}");
}

/// Records one fire of `job` at `at`, which is due at once.
async fn record_due(store: &dyn JobStore, job: &JobName, at: StoreTime) {
    let params = RecordFiresParams { fires: vec![fire(job, at)], missed: Vec::new() };
    assert_eq!(store.record_fires(params).await.expect("record").inserted, 1);
}

/// Three backends, as three processes would be: the keeper rang first and keeps the due bell's
/// lock, so its ring wakes the idle worker of a third backend at once, through the lock. A
/// backend that does not keep the lock (its try to take it fails while the keeper has it) wakes
/// that worker all the same, at the worker's next read of the counter: within the feed's 10 s
/// wait period, waited for here with room to spare.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rings_from_the_keeper_and_from_another_backend_reach_a_third_backend() {
    let harness = MariadbDatabase::start();
    let keeper = harness.backend().await.jobs();
    let other = harness.backend().await.jobs();
    let worker = harness.backend().await.jobs();
    let job = register(&keeper, "bells", OverlapPolicy::Allow).await;
    let base = past(&keeper).await;
    record_due(&keeper, &job, base).await;

    let mut feed = worker.subscribe_due().await.expect("subscribe").expect("MySQL notifies");
    record_due(&keeper, &job, base.saturating_add(Duration::from_secs(1))).await;
    tokio::time::timeout(Duration::from_secs(5), feed.next())
        .await
        .expect("no prompt wake-up from the keeper's ring")
        .expect("the feed works");

    record_due(&other, &job, base.saturating_add(Duration::from_secs(2))).await;
    tokio::time::timeout(Duration::from_secs(30), feed.next())
        .await
        .expect("no wake-up from the ring of a backend that does not keep the lock")
        .expect("the feed works");
}
