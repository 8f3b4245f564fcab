//! How many transactions and statements the job store spends: counted on the store's own write
//! connection (a commit hook, and sqlx's statement events on that connection's worker thread).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::ThreadId;
use std::time::Duration;

use baton_core::job::{ClaimParams, HeartbeatParams, NewFire, RecordFiresParams};
use baton_core::{
    HolderId, JobDefinition, JobName, JobPolicy, JobStore, OverlapPolicy, Schedule, StoreTime,
};
use tracing::field::{Field, Visit};

use crate::SqliteBackend;

/// Every statement sqlx ran in this process: the worker thread that ran it and its summary.
fn statements() -> &'static Mutex<Vec<(ThreadId, String)>> {
    static LOG: OnceLock<Mutex<Vec<(ThreadId, String)>>> = OnceLock::new();
    LOG.get_or_init(|| {
        tracing::subscriber::set_global_default(StatementLog)
            .expect("no other subscriber in this test binary");
        Mutex::default()
    })
}

/// A subscriber that keeps sqlx's statement events and nothing else.
struct StatementLog;

impl tracing::Subscriber for StatementLog {
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        metadata.target() == "sqlx::query"
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut summary = Summary(String::new());
        event.record(&mut summary);
        let entry = (std::thread::current().id(), summary.0);
        statements().lock().unwrap().push(entry);
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

struct Summary(String);

impl Visit for Summary {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "summary" {
            self.0 = value.to_string();
        }
    }
    fn record_debug(&mut self, _: &Field, _: &dyn std::fmt::Debug) {}
}

/// A store whose write connection reports its commits and the thread it runs on.
struct Counted {
    _dir: tempfile::TempDir,
    store: super::SqliteJobStore,
    commits: Arc<AtomicUsize>,
    thread: Arc<Mutex<Option<ThreadId>>>,
}

impl Counted {
    async fn open() -> Counted {
        statements();
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("baton.db").display());
        let backend = SqliteBackend::connect(&url).await.unwrap();
        backend.migrate().await.unwrap();
        let store = backend.jobs();
        let (commits, thread) = (Arc::new(AtomicUsize::new(0)), Arc::new(Mutex::new(None)));
        let mut conn = store.inner.write.pool().acquire().await.unwrap();
        let (count, seen) = (commits.clone(), thread.clone());
        conn.lock_handle().await.unwrap().set_commit_hook(move || {
            count.fetch_add(1, Ordering::SeqCst);
            *seen.lock().unwrap() = Some(std::thread::current().id());
            true
        });
        drop(conn);
        Counted { _dir: dir, store, commits, thread }
    }

    /// Commits and statements on the write connection so far.
    fn counts(&self) -> (usize, usize) {
        let thread = self.thread.lock().unwrap().expect("a commit happened");
        let log = statements().lock().unwrap();
        (self.commits.load(Ordering::SeqCst), log.iter().filter(|(t, _)| *t == thread).count())
    }

    /// Runs `operation` and answers the commits and statements it cost.
    async fn cost<T>(&self, operation: impl Future<Output = T>) -> (T, (usize, usize)) {
        let before = self.counts();
        let outcome = operation.await;
        let after = self.counts();
        (outcome, (after.0 - before.0, after.1 - before.1))
    }
}

async fn register(store: &dyn JobStore) -> JobName {
    register_with(store, OverlapPolicy::Allow).await
}

async fn register_with(store: &dyn JobStore, overlap: OverlapPolicy) -> JobName {
    let name = JobName::new(format!("counted-{:08x}", fastrand::u32(..))).unwrap();
    let definition = JobDefinition {
        name: name.clone(),
        schedule: Schedule::every(Duration::from_secs(60)).unwrap(),
        policy: JobPolicy::default().with_overlap(overlap),
    };
    store.job_upsert(definition).await.unwrap();
    name
}

#[tokio::test]
async fn batches_cost_one_transaction_and_a_fixed_number_of_statements() {
    let counted = Counted::open().await;
    let store: &dyn JobStore = &counted.store;
    let job = register(store).await;
    let base = store.now().await.unwrap().as_millis() - 3_600_000;
    let fires: Vec<NewFire> = (0..50)
        .map(|i| {
            let at = StoreTime::from_millis(base + i * 1_000);
            NewFire { job: job.clone(), scheduled_at: at, due_at: at }
        })
        .collect();

    let record = store.record_fires(RecordFiresParams { fires, missed: Vec::new() });
    let (recorded, cost) = counted.cost(record).await;
    assert_eq!(recorded.unwrap().inserted, 50);
    assert_eq!(cost, (1, 2), "50 fires: one transaction, a job check and one insert");

    let node = HolderId::new("counted-node").unwrap();
    let claim = store.claim(ClaimParams {
        node: node.clone(),
        limit: 50,
        jobs: vec![job],
        ahead: Duration::ZERO,
    });
    let (claimed, (commits, claim_statements)) = counted.cost(claim).await;
    let running = claimed.unwrap().running;
    assert_eq!(running.len(), 50);
    assert_eq!(commits, 1, "one transaction for the whole claim");
    // The due executions, their jobs, running and waiting executions, the token counter (read
    // and move up), one update for every run, and the next due instant.
    assert_eq!(claim_statements, 8, "a fixed number of statements for 50 runs");

    let executions = running.iter().map(|e| (e.id, e.token.unwrap())).collect();
    let beat = store.heartbeat(HeartbeatParams { node, executions });
    let (outcome, cost) = counted.cost(beat).await;
    assert!(outcome.unwrap().lost.is_empty());
    assert_eq!(cost, (1, 1), "a heartbeat of 50 executions is one statement");
}

#[tokio::test]
async fn a_claim_through_a_long_backlog_hands_the_write_lock_on_every_thousand_candidates() {
    let counted = Counted::open().await;
    let store: &dyn JobStore = &counted.store;
    let job = register_with(store, OverlapPolicy::Forbid).await;
    let base = store.now().await.unwrap().as_millis() - 3_600_000;
    let fire = |i: i64, due: Option<StoreTime>| {
        let at = StoreTime::from_millis(base + i);
        NewFire { job: job.clone(), scheduled_at: at, due_at: due.unwrap_or(at) }
    };
    let node = HolderId::new("counted-node").unwrap();
    let claim = |limit| ClaimParams {
        node: node.clone(),
        limit,
        jobs: vec![job.clone()],
        ahead: Duration::ZERO,
    };
    store
        .record_fires(RecordFiresParams { fires: vec![fire(0, None)], missed: Vec::new() })
        .await
        .unwrap();
    let first = store.claim(claim(1)).await.unwrap().running.remove(0);
    // The backlog comes due once the first has started.
    let due = first.started_at.unwrap().saturating_add(Duration::from_millis(1));
    for batch in 0..3 {
        let fires = (1..=850).map(|i| fire(batch * 850 + i, Some(due))).collect();
        store.record_fires(RecordFiresParams { fires, missed: Vec::new() }).await.unwrap();
    }
    while store.now().await.unwrap() < due {
        tokio::task::yield_now().await;
    }

    // Every fire of the backlog came due while the first runs: skipped (overlap=forbid).
    let (claimed, (commits, _)) = counted.cost(store.claim(claim(10))).await;
    let claimed = claimed.unwrap();
    assert!(claimed.running.is_empty());
    assert_eq!(claimed.settled.len(), 2550);
    assert_eq!(commits, 3, "2,550 candidates are examined in transactions of at most 1,000");
    assert_eq!(claimed.next_due, None);
}
