//! Cases with racing claimers: a leader recording fires while workers on backends (and so
//! connections) of their own claim and complete them as fast as they can.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use baton_core::job::{ClaimParams, CompleteParams, ExecutionListParams};
use baton_core::{ExecutionStatus, JobName, JobStore, OverlapPolicy};

use super::JobHarness;
use super::support::*;
use crate::conformance::unique_holder;

/// How long an idle worker of the race waits for a ring before it claims again.
const IDLE: Duration = Duration::from_millis(50);

/// Overlap `forbid` under racing claimers: never two executions of the job at once.
pub async fn racing_claimers_keep_a_forbid_job_exclusive(h: &dyn JobHarness) {
    race_claimers(h, OverlapPolicy::Forbid).await;
}

/// Overlap `buffer_one` under racing claimers: never two executions of the job at once.
pub async fn racing_claimers_keep_a_buffer_one_job_exclusive(h: &dyn JobHarness) {
    race_claimers(h, OverlapPolicy::BufferOne).await;
}

/// Overlap `replace` under racing claimers: never two executions of the job at once.
pub async fn racing_claimers_keep_a_replace_job_exclusive(h: &dyn JobHarness) {
    race_claimers(h, OverlapPolicy::Replace).await;
}

/// A leader records 300 fires of one job in batches while eight workers, each on a backend
/// (and so connections) of its own, claim and complete them as fast as they can. Whatever the
/// timing, no two executions of the job ever run at once, each run carries a greater token than
/// the run before it (what a fenced sink shared by the job's executions relies on), no claim
/// fails (deadlocks are retried), and every fire ends in a final status. Answers the job.
pub async fn race_claimers(h: &dyn JobHarness, overlap: OverlapPolicy) -> JobName {
    let store = h.store().await;
    let job = register(&*store, "race", super::support::overlap(overlap)).await;
    let base = past(&*store).await;
    let recorded = Arc::new(AtomicBool::new(false));
    let running = Arc::new(AtomicUsize::new(0));
    let runs = Arc::new(AtomicUsize::new(0));
    let tokens = Arc::new(Mutex::new(Vec::new()));

    let leader = {
        let (store, job, recorded) = (h.store().await, job.clone(), recorded.clone());
        tokio::spawn(async move {
            for batch in 0..60u64 {
                let fires = (0..5u64).map(|i| fire(&job, plus(base, batch * 5 + i))).collect();
                assert_eq!(record(&*store, fires).await, 5);
                tokio::time::sleep(Duration::from_millis(3)).await;
            }
            recorded.store(true, Ordering::SeqCst);
        })
    };
    let mut workers = Vec::new();
    for w in 0..8 {
        let store = h.store().await;
        let (job, recorded) = (job.clone(), recorded.clone());
        let (running, runs, tokens) = (running.clone(), runs.clone(), tokens.clone());
        workers.push(tokio::spawn(async move {
            let node = unique_holder(&format!("worker{w}"));
            let mut feed = store.subscribe_due().await.expect("subscribe to due executions");
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
                    tokens.lock().expect("tokens").push(execution.token.expect("token"));
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
                    // Idle, as a worker is: until the store rings (a fire recorded, an
                    // execution ended) or a short while has passed.
                    match feed.as_mut() {
                        Some(feed) => drop(tokio::time::timeout(IDLE, feed.next()).await),
                        None => tokio::time::sleep(IDLE).await,
                    }
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
    let tokens = tokens.lock().expect("tokens");
    for pair in tokens.windows(2) {
        assert!(
            pair[0] < pair[1],
            "{overlap}: a run under {} after one under {}",
            pair[1],
            pair[0]
        );
    }
    let policy = format!("overlap={overlap}");
    for execution in all.iter().filter(|e| e.status != ExecutionStatus::Succeeded) {
        assert_eq!(execution.status, ExecutionStatus::Skipped, "{execution:?}");
        let detail = execution.detail.as_deref().unwrap_or_default();
        assert!(detail.starts_with(&policy), "{execution:?}");
    }
    job
}

/// The job's executions still scheduled or running.
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
