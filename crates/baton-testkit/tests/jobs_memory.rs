//! The job-store conformance suite against the in-memory reference backend, and checks of
//! its timing under a manual clock.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use baton_core::job::{
    ClaimParams, CompleteParams, NewFire, PruneParams, RecordFiresParams, RescueParams,
};
use baton_core::memory::MemoryJobStore;
use baton_core::time::ManualClock;
use baton_core::{
    ExecutionStatus, HolderId, JobDefinition, JobName, JobPolicy, JobStore, OverlapPolicy,
    Retention, RetryPolicy, Schedule, StoreTime,
};
use baton_testkit::conformance::jobs::JobHarness;

/// One store shared by every handle of a harness.
#[derive(Default)]
struct Memory(Arc<MemoryJobStore>);

#[async_trait]
impl JobHarness for Memory {
    async fn store(&self) -> Arc<dyn JobStore> {
        self.0.clone()
    }
}

baton_testkit::job_conformance!(Memory::default());

const START: StoreTime = StoreTime::from_millis(1_800_000_000_000);

/// A store on a manual clock, with one registered job.
async fn manual(policy: JobPolicy) -> (Arc<ManualClock>, MemoryJobStore, JobName) {
    let clock = Arc::new(ManualClock::new(START));
    let store = MemoryJobStore::with_clock(clock.clone());
    let name = JobName::new("manual").unwrap();
    let schedule = Schedule::every(Duration::from_secs(60)).unwrap();
    store.job_upsert(JobDefinition { name: name.clone(), schedule, policy }).await.unwrap();
    (clock, store, name)
}

fn node() -> HolderId {
    HolderId::new("node-1").unwrap()
}

fn claim_params(job: &JobName) -> ClaimParams {
    ClaimParams { node: node(), limit: 10, jobs: vec![job.clone()], ahead: Duration::ZERO }
}

async fn record(store: &MemoryJobStore, job: &JobName, at: StoreTime, due_at: StoreTime) {
    let fires = vec![NewFire { job: job.clone(), scheduled_at: at, due_at }];
    store.record_fires(RecordFiresParams { fires, missed: Vec::new() }).await.unwrap();
}

#[tokio::test]
async fn ids_and_tokens_count_from_one() {
    let (_, store, job) = manual(JobPolicy::default().with_overlap(OverlapPolicy::Allow)).await;
    assert_eq!(store.job_get(&job).await.unwrap().unwrap().id, 1);
    record(&store, &job, START, START).await;
    record(&store, &job, START.saturating_add(Duration::from_secs(60)), START).await;
    let running = store.claim(claim_params(&job)).await.unwrap().running;
    let ids: Vec<(i64, u64)> = running.iter().map(|e| (e.id, e.token.unwrap().get())).collect();
    assert_eq!(ids, [(1, 1), (2, 2)]);
}

#[tokio::test]
async fn a_fire_becomes_due_at_its_due_instant_exactly() {
    let (clock, store, job) = manual(JobPolicy::default()).await;
    let due = START.saturating_add(Duration::from_secs(5));
    record(&store, &job, START, due).await;
    clock.advance(Duration::from_millis(4_999));
    let early = store.claim(claim_params(&job)).await.unwrap();
    assert!(early.running.is_empty());
    assert_eq!(early.now, START.saturating_add(Duration::from_millis(4_999)));
    assert_eq!(early.next_due, Some(due));
    clock.advance(Duration::from_millis(1));
    let on_time = store.claim(claim_params(&job)).await.unwrap();
    assert_eq!(on_time.running.len(), 1);
    assert_eq!(on_time.next_due, None);
}

#[tokio::test]
async fn rescue_waits_until_the_heartbeat_is_strictly_older_than_stale_after() {
    let retry = RetryPolicy::default()
        .with_max_attempts(2)
        .with_backoff(Duration::from_secs(10), Duration::from_secs(10));
    let (clock, store, job) = manual(JobPolicy::default().with_retry(retry)).await;
    record(&store, &job, START, START).await;
    let running = store.claim(claim_params(&job)).await.unwrap().running.remove(0);
    let params = RescueParams { stale_after: Duration::from_secs(30), limit: 10 };
    clock.advance(Duration::from_secs(30));
    assert!(store.rescue(params).await.unwrap().abandoned.is_empty(), "exactly stale_after old");
    clock.advance(Duration::from_millis(1));
    let rescued = store.rescue(params).await.unwrap();
    assert_eq!(rescued.abandoned.len(), 1);
    let abandoned = &rescued.abandoned[0];
    assert_eq!((abandoned.id, abandoned.status), (running.id, ExecutionStatus::Abandoned));
    assert_eq!(
        abandoned.detail.as_deref(),
        Some("worker node-1 stopped heartbeating (last at 2027-01-15T08:00:00.000Z)")
    );
    let now = START.saturating_add(Duration::from_millis(30_001));
    assert_eq!(rescued.retries[0].due_at, now.saturating_add(Duration::from_secs(10)));
    let late = CompleteParams {
        id: running.id,
        token: running.token.unwrap(),
        status: ExecutionStatus::Succeeded,
        detail: None,
        output: None,
    };
    assert!(store.complete(late).await.is_err(), "the abandoned attempt cannot complete");
}

#[tokio::test]
async fn prune_judges_age_strictly_on_the_store_clock() {
    let (clock, store, job) = manual(JobPolicy::default().with_overlap(OverlapPolicy::Allow)).await;
    for i in 0..2 {
        record(&store, &job, START.saturating_add(Duration::from_secs(60 * i)), START).await;
    }
    for running in store.claim(claim_params(&job)).await.unwrap().running {
        let token = running.token.unwrap();
        let done = CompleteParams {
            id: running.id,
            token,
            status: ExecutionStatus::Succeeded,
            detail: None,
            output: None,
        };
        store.complete(done).await.unwrap();
    }
    let retention = Retention::default().with_max_age(Duration::from_secs(60));
    let params = PruneParams { job: job.clone(), retention, batch: 10 };
    clock.advance(Duration::from_secs(60));
    assert_eq!(store.prune(params.clone()).await.unwrap(), 0, "exactly max_age old");
    clock.advance(Duration::from_millis(1));
    assert_eq!(store.prune(params).await.unwrap(), 1, "all but the newest record");
}
