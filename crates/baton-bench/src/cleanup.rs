//! Leaving the store fit for what runs on it next: there is no job removal, so a run's jobs
//! are re-registered with a schedule that never fires, and executions still waiting when the
//! nodes stopped are settled (a waiting execution of a job nobody runs any more would keep
//! every worker's `next_due` in the past).

use std::sync::Arc;
use std::time::{Duration, Instant};

use baton::core::job::{ClaimParams, CompleteParams};
use baton::core::schedule::{JobName, Schedule};
use baton::core::{ExecutionStatus, JobStore};
use baton::{HolderId, StoreTime};

use crate::lease::progress;
use crate::target::Target;

/// Store calls in flight while retiring jobs.
const RETIRING_TASKS: usize = 8;
/// Executions one settling claim takes.
const SETTLE_BATCH: u32 = 1000;
/// How long a run spends settling what its nodes left.
const SETTLE_LIMIT: Duration = Duration::from_secs(120);

/// Re-registers the jobs named `names` with a schedule that never fires again, so that no later
/// scheduler on this store plans them; their records stay.
pub(crate) async fn retire(store: Arc<dyn JobStore>, names: Vec<String>) -> anyhow::Result<()> {
    let chunk = names.len().div_ceil(RETIRING_TASKS).max(1);
    let mut tasks = Vec::new();
    for part in names.chunks(chunk) {
        let (store, part) = (store.clone(), part.to_vec());
        tasks.push(tokio::spawn(async move {
            for name in part {
                let Some(job) = store.job_get(&JobName::new(name)?).await? else { continue };
                let mut definition = job.definition;
                definition.schedule = Schedule::once(StoreTime::from_millis(0));
                store.job_upsert(definition).await?;
            }
            anyhow::Ok(())
        }));
    }
    crate::timed::join_all(tasks).await.map(|_| ())
}

/// Settles what the nodes left waiting for the jobs named `names`, on a database server. On
/// SQLite a claim that settles a backlog takes minutes (it reads the whole backlog in one
/// transaction), so what is left stays there, which the progress line says.
pub(crate) async fn settle_left(
    store: &dyn JobStore,
    target: &Target,
    names: &[String],
) -> anyhow::Result<()> {
    if !target.is_embedded() {
        let settled = settle(store, names, SETTLE_LIMIT).await?;
        progress(&settled.to_string());
    } else {
        progress(
            "executions still waiting are left as they are on SQLite (settling them takes \
             minutes); use a fresh file for the next run",
        );
    }
    Ok(())
}

/// What [`settle`] did.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Settled {
    /// Executions settled.
    pub(crate) settled: u64,
    /// Whether some may be left because the time allowed ran out.
    pub(crate) cut_short: bool,
}

/// Claims what is still due for the jobs named `names` and records it cancelled (a claim may
/// settle some as skipped by the jobs' overlap policy), for at most `limit`.
async fn settle(
    store: &dyn JobStore,
    names: &[String],
    limit: Duration,
) -> anyhow::Result<Settled> {
    let jobs = names.iter().map(JobName::new).collect::<baton::Result<Vec<_>>>()?;
    let node = HolderId::new("bench-cleanup")?;
    let claim = ClaimParams { node, limit: SETTLE_BATCH, jobs, ahead: Duration::ZERO };
    let began = Instant::now();
    let mut settled = 0u64;
    loop {
        if began.elapsed() > limit {
            return Ok(Settled { settled, cut_short: true });
        }
        let claimed = store.claim(claim.clone()).await?;
        if claimed.running.is_empty() && claimed.settled.is_empty() {
            return Ok(Settled { settled, cut_short: false });
        }
        settled += claimed.settled.len() as u64;
        let batch: Vec<CompleteParams> = claimed
            .running
            .iter()
            .filter_map(|execution| {
                Some(CompleteParams {
                    id: execution.id,
                    token: execution.token?,
                    status: ExecutionStatus::Cancelled,
                    detail: Some("the benchmark run ended before a worker ran it".into()),
                    output: None,
                })
            })
            .collect();
        for result in store.complete_batch(batch).await {
            result?;
            settled += 1;
        }
    }
}

impl std::fmt::Display for Settled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "settled {} executions still waiting as cancelled", self.settled)?;
        if self.cut_short {
            write!(f, "; stopped at the time allowed, some are left (use a fresh database next)")?;
        }
        Ok(())
    }
}
