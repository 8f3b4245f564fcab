//! The job-store conformance suite against a throwaway MariaDB server, plus what only a real
//! server can show: overlap decisions that stay exclusive under racing claimers on separate
//! connections (deadlocks retried, never surfacing), and due wake-ups reaching an idle worker
//! of another backend, from the backend that keeps the due bell's lock and from one that does
//! not.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use baton_core::job::{
    ClaimParams, CompleteParams, ExecutionListParams, NewFire, RecordFiresParams,
};
use baton_core::{
    ExecutionStatus, JobDefinition, JobName, JobPolicy, JobStore, OverlapPolicy, Schedule,
    StoreTime,
};
use baton_testkit::conformance::jobs::{JobHarness, unique_job};
use baton_testkit::conformance::unique_holder;
use baton_testkit::databases::MariadbDatabase;

baton_testkit::job_conformance!(MariadbDatabase::start());

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

async fn live(store: &dyn JobStore, job: &JobName) -> usize {
    let mut live = 0;
    for status in [ExecutionStatus::Scheduled, ExecutionStatus::Running] {
        let params = ExecutionListParams {
            job: Some(job.clone()),
            status: Some(status),
            limit: 1000,
            ..Default::default()
        };
        live += store.execution_list(params).await.expect("list").items.len();
    }
    live
}

/// A leader records 300 fires of one job in batches while eight workers, each on a backend
/// (and so connections) of its own, claim and complete them as fast as they can. Whatever the
/// timing, no two executions of the job ever run at once, no claim fails (deadlocks are
/// retried), and every fire ends in a final status.
async fn race_claimers(overlap: OverlapPolicy) {
    let harness = MariadbDatabase::start();
    let store = harness.store().await;
    let job = register(&*store, "race", overlap).await;
    let base = past(&*store).await;
    let recorded = Arc::new(AtomicBool::new(false));
    let running = Arc::new(AtomicUsize::new(0));
    let runs = Arc::new(AtomicUsize::new(0));

    let leader = {
        let (store, job, recorded) = (harness.store().await, job.clone(), recorded.clone());
        tokio::spawn(async move {
            for batch in 0..60u64 {
                let fires = (0..5u64)
                    .map(|i| fire(&job, base.saturating_add(Duration::from_secs(batch * 5 + i))))
                    .collect();
                let params = RecordFiresParams { fires, missed: Vec::new() };
                assert_eq!(store.record_fires(params).await.expect("record").inserted, 5);
                tokio::time::sleep(Duration::from_millis(3)).await;
            }
            recorded.store(true, Ordering::SeqCst);
        })
    };
    let mut workers = Vec::new();
    for w in 0..8 {
        let store = harness.store().await;
        let (job, recorded) = (job.clone(), recorded.clone());
        let (running, runs) = (running.clone(), runs.clone());
        workers.push(tokio::spawn(async move {
            let node = unique_holder(&format!("worker{w}"));
            let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
            loop {
                assert!(tokio::time::Instant::now() < deadline, "the race never settled");
                let params = ClaimParams {
                    node: node.clone(),
                    limit: 4,
                    jobs: vec![job.clone()],
                    ahead: Duration::ZERO,
                };
                let claimed = store.claim(params).await.expect("claim");
                for execution in &claimed.running {
                    let now_running = running.fetch_add(1, Ordering::SeqCst) + 1;
                    assert_eq!(now_running, 1, "{overlap}: two executions ran at once");
                    runs.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(1)).await;
                    running.fetch_sub(1, Ordering::SeqCst);
                    let done = CompleteParams {
                        id: execution.id,
                        token: execution.token.expect("token"),
                        status: ExecutionStatus::Succeeded,
                        detail: None,
                        output: None,
                    };
                    store.complete(done).await.expect("complete");
                }
                if claimed.running.is_empty() && claimed.settled.is_empty() {
                    if recorded.load(Ordering::SeqCst) && live(&*store, &job).await == 0 {
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(2)).await;
                }
            }
        }));
    }
    leader.await.expect("leader");
    for worker in workers {
        worker.await.expect("worker");
    }

    let params = ExecutionListParams { job: Some(job.clone()), limit: 1000, ..Default::default() };
    let all = baton_core::job::all_executions(&*store, params).await.expect("list");
    assert_eq!(all.len(), 300, "one record per fire");
    let succeeded = all.iter().filter(|e| e.status == ExecutionStatus::Succeeded).count();
    assert_eq!(succeeded, runs.load(Ordering::SeqCst), "every run completed");
    assert!(succeeded >= 2, "{overlap}: the job ran more than once ({succeeded})");
    let policy = format!("overlap={overlap}");
    for execution in all.iter().filter(|e| e.status != ExecutionStatus::Succeeded) {
        assert_eq!(execution.status, ExecutionStatus::Skipped, "{execution:?}");
        let detail = execution.detail.as_deref().unwrap_or_default();
        assert!(detail.starts_with(&policy), "{execution:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_claimers_never_run_two_executions_of_a_forbid_job() {
    race_claimers(OverlapPolicy::Forbid).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_claimers_never_run_two_executions_of_a_buffer_one_job() {
    race_claimers(OverlapPolicy::BufferOne).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_claimers_never_run_two_executions_of_a_replace_job() {
    race_claimers(OverlapPolicy::Replace).await;
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
