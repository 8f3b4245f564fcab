//! The executions scenario's record: executions recorded up front (fires of a few jobs, in
//! batches, as the scheduler leader records them), and the check that every one of them ran
//! once and kept its record, token and times.

use std::collections::HashSet;

use baton::StoreTime;
use baton::core::job::{ExecutionListParams, NewFire, RecordFiresParams, all_executions};
use baton::core::schedule::JobName;
use baton::core::{ExecutionStatus, JobStore};

use crate::bench_jobs;

/// Fires recorded by one call.
const RECORD_BATCH: u32 = 1000;

/// Registers `jobs` jobs of `mode` and records `count` due executions spread over them, each
/// a fire of its own (distinct milliseconds in the past); answers the job names.
pub(crate) async fn prepare(
    store: &dyn JobStore,
    run: &str,
    mode: &str,
    jobs: u32,
    count: u32,
) -> anyhow::Result<Vec<JobName>> {
    let mut names = Vec::with_capacity(jobs as usize);
    for index in 0..jobs {
        let job = bench_jobs::exec_job(run, mode, index, bench_jobs::nothing)?;
        store.job_upsert(job.definition().clone()).await?;
        names.push(job.name().clone());
    }
    let now = store.now().await?;
    let per_job = count.div_ceil(jobs);
    let oldest = now.as_millis() - i64::from(per_job) - 1;
    let mut recorded = 0u64;
    for first in (0..count).step_by(RECORD_BATCH as usize) {
        let fires = (first..count.min(first + RECORD_BATCH))
            .map(|i| {
                let at = StoreTime::from_millis(oldest + i64::from(i / jobs));
                NewFire { job: names[(i % jobs) as usize].clone(), scheduled_at: at, due_at: at }
            })
            .collect();
        let params = RecordFiresParams { fires, missed: Vec::new() };
        recorded += store.record_fires(params).await?.inserted;
    }
    anyhow::ensure!(
        recorded == u64::from(count),
        "recorded {recorded} executions instead of {count}: the store already held some"
    );
    Ok(names)
}

/// What the record of a drained mode shows.
#[derive(Debug, Clone, Default)]
pub(crate) struct Verified {
    /// Execution records of the mode's jobs.
    pub(crate) records: u64,
    /// Those that succeeded.
    pub(crate) succeeded: u64,
    /// Distinct fencing tokens among them.
    pub(crate) distinct_tokens: u64,
    /// Succeeded records missing their token, node, start or finish time.
    pub(crate) incomplete: u64,
    /// Records of attempts after the first (there should be none).
    pub(crate) retries: u64,
}

impl Verified {
    /// Whether the `completed` executions the workers reported each succeeded once and kept
    /// their record (token, node, times), out of `count` recorded.
    pub(crate) fn holds(&self, count: u32, completed: u64) -> bool {
        self.records == u64::from(count)
            && self.succeeded == completed
            && self.distinct_tokens == completed
            && self.incomplete == 0
            && self.retries == 0
    }
}

/// Reads back every execution of `jobs`.
pub(crate) async fn verify(store: &dyn JobStore, jobs: &[JobName]) -> anyhow::Result<Verified> {
    let mut verified = Verified::default();
    let mut tokens = HashSet::new();
    for job in jobs {
        let filter = ExecutionListParams { job: Some(job.clone()), ..Default::default() };
        for execution in all_executions(store, filter).await? {
            verified.records += 1;
            verified.retries += u64::from(execution.attempt > 1);
            if execution.status != ExecutionStatus::Succeeded {
                continue;
            }
            verified.succeeded += 1;
            let complete = execution.node.is_some()
                && execution.started_at.is_some()
                && execution.finished_at.is_some();
            match execution.token {
                Some(token) if complete => {
                    tokens.insert(token);
                }
                Some(token) => {
                    tokens.insert(token);
                    verified.incomplete += 1;
                }
                None => verified.incomplete += 1,
            }
        }
    }
    verified.distinct_tokens = tokens.len() as u64;
    Ok(verified)
}
