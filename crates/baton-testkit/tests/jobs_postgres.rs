//! The job-store conformance suite and its racing-claimers cases against a throwaway PostgreSQL
//! server, plus what only a real server can show: the queue tables after racing claimers, one transaction per batch of
//! fires, and the SQL renderings of instants and reasons.

use std::time::Duration;

use baton_core::job::{
    ClaimParams, CompleteParams, MissedFires, NewFire, RecordFiresParams, RescueParams, Trigger,
    TriggerOutcome, TriggerParams,
};
use baton_core::{
    ErrorKind, ExecutionStatus, JobDefinition, JobName, JobPolicy, JobStore, OverlapPolicy,
    RetryPolicy, Schedule, StoreTime,
};
use baton_testkit::conformance::jobs::{JobHarness, race_claimers, unique_job};
use baton_testkit::conformance::unique_holder;
use baton_testkit::databases::PostgresDatabase;
use sqlx::{Connection, PgConnection};

baton_testkit::job_conformance!(PostgresDatabase::start());
baton_testkit::job_race_conformance!(PostgresDatabase::start());

fn register_params(name: &JobName, overlap: OverlapPolicy) -> JobDefinition {
    JobDefinition {
        name: name.clone(),
        schedule: Schedule::every(Duration::from_secs(1)).expect("valid interval"),
        policy: JobPolicy::default().with_overlap(overlap),
    }
}

async fn register(store: &dyn JobStore, prefix: &str, overlap: OverlapPolicy) -> JobName {
    let name = unique_job(prefix);
    store.job_upsert(register_params(&name, overlap)).await.expect("register");
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

/// The queue tables still hold exactly the job's waiting and running executions after the
/// conformance suite's race of claimers (nothing, once every fire ended).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_live_tables_hold_nothing_of_a_job_after_racing_claimers() {
    let harness = PostgresDatabase::start();
    let job = race_claimers(&harness, OverlapPolicy::Forbid).await;
    assert_live_tables_follow_status(&mut harness.admin().await, &job, "the race").await;
}

/// Asserts that the queue tables hold exactly the job's waiting and running executions
/// (migration 0007): what the claim walks and what rescue reads must follow every change of
/// status.
async fn assert_live_tables_follow_status(admin: &mut PgConnection, job: &JobName, step: &str) {
    let (scheduled, queued, running, runs): (Vec<i64>, Vec<i64>, Vec<i64>, Vec<i64>) =
        sqlx::query_as(
            "SELECT \
                 ARRAY(SELECT id FROM baton_executions \
                       WHERE job = $1 AND status = 'scheduled' ORDER BY id), \
                 ARRAY(SELECT id FROM baton_execution_queue WHERE job = $1 ORDER BY id), \
                 ARRAY(SELECT id FROM baton_executions \
                       WHERE job = $1 AND status = 'running' ORDER BY id), \
                 ARRAY(SELECT id FROM baton_execution_runs WHERE job = $1 ORDER BY id)",
        )
        .bind(job.as_str())
        .fetch_one(admin)
        .await
        .expect("read the live tables");
    assert_eq!(queued, scheduled, "after {step}: the queue holds the scheduled executions");
    assert_eq!(runs, running, "after {step}: the runs hold the running executions");
}

/// Every path that changes an execution's status keeps the queue tables in step: recording,
/// claiming (start and settle), triggering (due or started), cancelling (waiting or
/// running), completing with a retry, and rescuing with a retry.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_tables_follow_every_change_of_status() {
    let harness = PostgresDatabase::start();
    let store = harness.store().await;
    let mut admin = harness.admin().await;
    let job = unique_job("live");
    let retry = RetryPolicy::none()
        .with_max_attempts(3)
        .with_backoff(Duration::from_millis(1), Duration::from_millis(1));
    let policy = JobPolicy::default().with_overlap(OverlapPolicy::Forbid).with_retry(retry);
    let definition = JobDefinition {
        name: job.clone(),
        schedule: Schedule::every(Duration::from_secs(1)).expect("valid interval"),
        policy,
    };
    store.job_upsert(definition).await.expect("register");
    let base = past(&*store).await;
    let fires = (0..4u64).map(|i| fire(&job, base.saturating_add(Duration::from_secs(i))));
    let params = RecordFiresParams { fires: fires.collect(), missed: Vec::new() };
    assert_eq!(store.record_fires(params).await.expect("record").inserted, 4);
    assert_live_tables_follow_status(&mut admin, &job, "recording").await;

    let node = unique_holder("live");
    let claim = ClaimParams {
        node: node.clone(),
        limit: 4,
        jobs: vec![job.clone()],
        ahead: Duration::ZERO,
    };
    let claimed = store.claim(claim.clone()).await.expect("claim");
    assert_eq!(claimed.running.len(), 1, "forbid starts one");
    assert_eq!(claimed.settled.len(), 0, "the fires owed with it wait for it");
    assert_live_tables_follow_status(&mut admin, &job, "a claim").await;
    // A fire that comes due while the first runs is settled (skipped) by the next claim.
    let started = claimed.running[0].started_at.expect("a claimed execution has started");
    while store.now().await.expect("store time") <= started {
        tokio::task::yield_now().await;
    }
    let now = store.now().await.expect("store time");
    let params = RecordFiresParams { fires: vec![fire(&job, now)], missed: Vec::new() };
    assert_eq!(store.record_fires(params).await.expect("record").inserted, 1);
    let settling = store.claim(claim.clone()).await.expect("claim");
    assert_eq!((settling.running.len(), settling.settled.len()), (0, 1), "{settling:?}");
    assert_live_tables_follow_status(&mut admin, &job, "a claim that settles").await;
    let mut started = None;

    for (claim_for, status) in
        [(None, ExecutionStatus::Scheduled), (Some(node), ExecutionStatus::Running)]
    {
        let manual = TriggerParams {
            job: job.clone(),
            fire_key: None,
            scheduled_at: None,
            trigger: Trigger::Manual,
            claim_for,
        };
        let triggered = match store.trigger(manual).await.expect("trigger") {
            TriggerOutcome::Recorded(execution) => execution,
            other => panic!("a new execution was expected: {other:?}"),
        };
        assert_eq!(triggered.status, status);
        assert_live_tables_follow_status(&mut admin, &job, &format!("a trigger ({status})")).await;
        assert!(store.request_cancel(triggered.id).await.expect("cancel"));
        assert_live_tables_follow_status(&mut admin, &job, &format!("cancelling ({status})")).await;
        started = Some(triggered);
    }
    let started = started.expect("the second trigger started an execution");

    let first = &claimed.running[0];
    let failed = CompleteParams {
        id: first.id,
        token: first.token.expect("token"),
        status: ExecutionStatus::Failed,
        detail: Some("boom".into()),
        output: None,
    };
    assert!(store.complete(failed).await.expect("complete").retry.is_some(), "retried");
    assert_live_tables_follow_status(&mut admin, &job, "a failure retried").await;

    // Stale means a heartbeat older than the store's clock by more than zero: wait for the
    // clock to pass the started execution's heartbeat.
    let beat = started.heartbeat_at.expect("a started execution has a heartbeat");
    while store.now().await.expect("store time") <= beat {
        tokio::task::yield_now().await;
    }
    let rescue = RescueParams { stale_after: Duration::ZERO, limit: 100 };
    let rescued = store.rescue(rescue).await.expect("rescue");
    assert!(rescued.abandoned.iter().any(|e| e.id == started.id), "{rescued:?}");
    assert!(!rescued.retries.is_empty(), "the abandoned run is retried: {rescued:?}");
    assert_live_tables_follow_status(&mut admin, &job, "a rescue retried").await;
}

/// The transaction id the server would hand out next, read in a transaction of its own (which
/// takes one).
async fn next_xid(admin: &mut PgConnection) -> i64 {
    sqlx::query_scalar("SELECT pg_current_xact_id()::TEXT::BIGINT")
        .fetch_one(admin)
        .await
        .expect("read the transaction counter")
}

/// A batch of fires and missed runs is one write transaction, and wakes a listening worker.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_of_fires_is_one_transaction_and_one_wake_up() {
    let harness = PostgresDatabase::start();
    let store = harness.store().await;
    let mut admin = harness.admin().await;
    harness.autovacuum_off().await;
    let (a, b) = (
        register(&*store, "batch-a", OverlapPolicy::Allow).await,
        register(&*store, "batch-b", OverlapPolicy::Forbid).await,
    );
    let base = past(&*store).await;
    let mut fires = Vec::new();
    for i in 0..100 {
        fires.push(fire(&a, base.saturating_add(Duration::from_secs(i))));
        fires.push(fire(&b, base.saturating_add(Duration::from_secs(i))));
    }
    let run = MissedFires {
        job: a.clone(),
        first: base.saturating_add(Duration::from_secs(1_000)),
        last: base.saturating_add(Duration::from_secs(1_010)),
        count: 11,
        reason: "misfire=skip: test".into(),
    };
    let mut feed = store.subscribe_due().await.unwrap().expect("PostgreSQL notifies");

    let before = next_xid(&mut admin).await;
    let params = RecordFiresParams { fires, missed: vec![run] };
    assert_eq!(store.record_fires(params.clone()).await.unwrap().inserted, 201);
    let after = next_xid(&mut admin).await;
    assert_eq!(after - before, 2, "one write transaction between two reads of the counter");
    tokio::time::timeout(Duration::from_secs(10), feed.next())
        .await
        .expect("a wake-up for the batch")
        .expect("the feed works");

    let before = next_xid(&mut admin).await;
    assert_eq!(store.record_fires(params).await.unwrap().inserted, 0);
    let after = next_xid(&mut admin).await;
    assert!(after - before <= 2, "a repeated batch is at most one transaction");
    let nothing_new = tokio::time::timeout(Duration::from_millis(300), feed.next()).await;
    assert!(nothing_new.is_err(), "a batch that recorded nothing wakes nobody");
}

/// A claim is one transaction, and so is a completion with its retry.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claim_and_complete_are_one_transaction_each() {
    let harness = PostgresDatabase::start();
    let store = harness.store().await;
    let mut admin = harness.admin().await;
    harness.autovacuum_off().await;
    let job = unique_job("one-tx");
    let mut definition = register_params(&job, OverlapPolicy::Forbid);
    definition.policy = definition.policy.with_retry(
        baton_core::RetryPolicy::default()
            .with_max_attempts(2)
            .with_backoff(Duration::from_secs(60), Duration::from_secs(60)),
    );
    store.job_upsert(definition).await.unwrap();
    let base = past(&*store).await;
    let fires = (0..5).map(|i| fire(&job, base.saturating_add(Duration::from_secs(i)))).collect();
    store.record_fires(RecordFiresParams { fires, missed: Vec::new() }).await.unwrap();

    let node = unique_holder("node");
    let before = next_xid(&mut admin).await;
    let params = ClaimParams {
        node: node.clone(),
        limit: 10,
        jobs: vec![job.clone()],
        ahead: Duration::ZERO,
    };
    let claimed = store.claim(params).await.unwrap();
    let after = next_xid(&mut admin).await;
    assert_eq!((claimed.running.len(), claimed.settled.len()), (1, 0), "the others wait");
    assert_eq!(after - before, 2, "one claim, one transaction");

    let running = &claimed.running[0];
    let before = next_xid(&mut admin).await;
    let done = CompleteParams {
        id: running.id,
        token: running.token.unwrap(),
        status: ExecutionStatus::Failed,
        detail: Some("boom".into()),
        output: None,
    };
    let completed = store.complete(done).await.unwrap();
    let after = next_xid(&mut admin).await;
    assert!(completed.retry.is_some(), "the policy retries once");
    assert_eq!(after - before, 2, "completion and retry in one transaction");
}

/// A batch of completions is one transaction, and each is judged on its own: a stale token
/// answers `LeaseLost`, a status that is not final `InvalidInput`, the others complete.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn complete_batch_judges_each_completion_in_one_transaction() {
    let harness = PostgresDatabase::start();
    let store = harness.store().await;
    let mut admin = harness.admin().await;
    harness.autovacuum_off().await;
    let job = register(&*store, "batch-complete", OverlapPolicy::Allow).await;
    let base = past(&*store).await;
    let fires = (0..4).map(|i| fire(&job, base.saturating_add(Duration::from_secs(i)))).collect();
    store.record_fires(RecordFiresParams { fires, missed: Vec::new() }).await.unwrap();
    let node = unique_holder("node");
    let params = ClaimParams { node, limit: 10, jobs: vec![job.clone()], ahead: Duration::ZERO };
    let running = store.claim(params).await.unwrap().running;
    assert_eq!(running.len(), 4);
    let done = |i: usize, status: ExecutionStatus| CompleteParams {
        id: running[i].id,
        token: running[i].token.unwrap(),
        status,
        detail: None,
        output: None,
    };
    let stale =
        CompleteParams { token: running[0].token.unwrap(), ..done(1, ExecutionStatus::Failed) };
    let batch = vec![
        done(0, ExecutionStatus::Succeeded),
        stale,
        done(2, ExecutionStatus::Running),
        done(3, ExecutionStatus::Failed),
    ];
    let before = next_xid(&mut admin).await;
    let results = store.complete_batch(batch).await;
    let after = next_xid(&mut admin).await;
    assert_eq!(after - before, 2, "one transaction for the batch");
    let kinds: Vec<Option<ErrorKind>> =
        results.iter().map(|r| r.as_ref().err().map(|e| e.kind())).collect();
    assert_eq!(
        kinds,
        [None, Some(ErrorKind::LeaseLost), Some(ErrorKind::InvalidInput), None],
        "{results:?}"
    );
    let statuses: Vec<ExecutionStatus> =
        results.iter().flatten().map(|c| c.execution.status).collect();
    assert_eq!(statuses, [ExecutionStatus::Succeeded, ExecutionStatus::Failed]);
    for i in [1, 2] {
        let unchanged = store.execution_get(running[i].id).await.unwrap().unwrap();
        assert_eq!(unchanged.status, ExecutionStatus::Running, "execution {i} is untouched");
    }
}

/// A fire waiting behind a running `buffer-one` or `replace` execution does not hold up the
/// due executions of other jobs, even for a claim of one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiting_fires_do_not_starve_other_jobs() {
    let harness = PostgresDatabase::start();
    let store = harness.store().await;
    let node = unique_holder("node");
    let base = past(&*store).await;
    let mut blocked = Vec::new();
    for overlap in [OverlapPolicy::BufferOne, OverlapPolicy::Replace] {
        let job = register(&*store, "blocked", overlap).await;
        let params = RecordFiresParams { fires: vec![fire(&job, base)], missed: Vec::new() };
        store.record_fires(params).await.unwrap();
        let params = ClaimParams {
            node: node.clone(),
            limit: 1,
            jobs: vec![job.clone()],
            ahead: Duration::ZERO,
        };
        assert_eq!(store.claim(params.clone()).await.unwrap().running.len(), 1);
        let later = fire(&job, base.saturating_add(Duration::from_secs(1)));
        store
            .record_fires(RecordFiresParams { fires: vec![later], missed: Vec::new() })
            .await
            .unwrap();
        let claimed = store.claim(params).await.unwrap();
        assert_eq!((claimed.running.len(), claimed.settled.len()), (0, 0), "{overlap} waits");
        blocked.push(job);
    }
    let free = register(&*store, "free", OverlapPolicy::Allow).await;
    let later = fire(&free, base.saturating_add(Duration::from_secs(2)));
    store.record_fires(RecordFiresParams { fires: vec![later], missed: Vec::new() }).await.unwrap();
    let any = ClaimParams { node: node.clone(), limit: 1, jobs: Vec::new(), ahead: Duration::ZERO };
    let claimed = store.claim(any).await.unwrap();
    let jobs: Vec<&JobName> = claimed.running.iter().map(|e| &e.job).collect();
    assert_eq!(jobs, [&free], "the free job's fire runs although older fires wait");
}

/// The SQL renderings match the Rust ones: instants as `StoreTime` prints them (the rescue
/// reason), durations as the claim rules word them.
#[tokio::test]
async fn sql_renderings_match_the_rust_ones() {
    let harness = PostgresDatabase::start();
    let _store = harness.store().await;
    let mut admin = harness.admin().await;
    for ms in [0, 1_500, 1_795_255_200_000, 1_795_255_200_123, 4_102_444_799_999] {
        let text: String = sqlx::query_scalar("SELECT baton_instant_text($1)")
            .bind(ms)
            .fetch_one(&mut admin)
            .await
            .unwrap();
        assert_eq!(text, StoreTime::from_millis(ms).to_string());
    }
    for (ms, expected) in [(30_000, "30.0s"), (600_000, "600.0s"), (1_240, "1.2s"), (59, "0.1s")] {
        let text: String = sqlx::query_scalar("SELECT baton_seconds_text($1)")
            .bind(ms as i64)
            .fetch_one(&mut admin)
            .await
            .unwrap();
        assert_eq!(text, expected);
        assert_eq!(format!("{:.1}s", Duration::from_millis(ms).as_secs_f64()), expected);
    }
}

/// Blocks of the queue (table and indexes) this session's open transaction read so far.
async fn queue_blocks_read(admin: &mut PgConnection) -> i64 {
    sqlx::query_scalar(
        "SELECT sum(pg_stat_get_xact_blocks_fetched(c.oid))::BIGINT FROM pg_class AS c \
         WHERE c.relname LIKE 'baton_execution_queue%'",
    )
    .fetch_one(admin)
    .await
    .expect("read the block counters")
}

/// After ANALYZE saw the queue empty (as it does after a drain), a burst of 50,000 due
/// executions is claimed by walking the due index in order: a claim of 10 reads a few dozen
/// blocks of the queue, not the whole of it. With the statistics saying "no rows", the planner
/// could prefer to read every due row and sort them (seen in the executions benchmark: 330 ms
/// per claim of 100 in a queue of 100,000). Whether it does turns on small differences of
/// cost, so this session tips it with a high random_page_cost: the claim as a plain statement
/// then read about 1,170 blocks of the queue, the claim function about 40.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_reads_only_what_it_claims_after_the_queue_was_analyzed_empty() {
    let harness = PostgresDatabase::start();
    let store = harness.store().await;
    let mut admin = harness.admin().await;
    harness.autovacuum_off().await;
    let job = register(&*store, "burst", OverlapPolicy::Allow).await;
    let base = past(&*store).await;
    let record = |seconds: std::ops::Range<u64>| {
        let fires = seconds.map(|s| fire(&job, base.saturating_add(Duration::from_secs(s))));
        RecordFiresParams { fires: fires.collect(), missed: Vec::new() }
    };

    store.record_fires(record(0..500)).await.unwrap();
    let node = unique_holder("node");
    let claim = ClaimParams { node, limit: 500, jobs: Vec::new(), ahead: Duration::ZERO };
    let running = store.claim(claim).await.unwrap().running;
    assert_eq!(running.len(), 500);
    let done = running.iter().map(|execution| CompleteParams {
        id: execution.id,
        token: execution.token.unwrap(),
        status: ExecutionStatus::Succeeded,
        detail: None,
        output: None,
    });
    assert!(store.complete_batch(done.collect()).await.iter().all(|r| r.is_ok()));
    sqlx::query("ANALYZE baton_execution_queue").execute(&mut admin).await.unwrap();
    let (pages, rows): (i32, f32) = sqlx::query_as(
        "SELECT relpages, reltuples FROM pg_class WHERE relname = 'baton_execution_queue'",
    )
    .fetch_one(&mut admin)
    .await
    .unwrap();
    assert!(pages > 0 && rows == 0.0, "the statistics say: {rows} rows on {pages} pages");
    for start in (500..50_500).step_by(1_000) {
        assert_eq!(store.record_fires(record(start..start + 1_000)).await.unwrap().inserted, 1_000);
    }

    sqlx::query("SET random_page_cost = 100").execute(&mut admin).await.unwrap();
    let mut tx = admin.begin().await.unwrap();
    let before = queue_blocks_read(&mut tx).await;
    let started: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM baton_claim_executions('reader', 10, '{}', 10, 0) \
         WHERE status = 'running'",
    )
    .fetch_one(&mut *tx)
    .await
    .unwrap();
    let read = queue_blocks_read(&mut tx).await - before;
    tx.commit().await.unwrap();
    assert_eq!(started, 10);
    assert!(read < 200, "a claim of 10 read {read} blocks of the queue, which has about 1,100");
}
