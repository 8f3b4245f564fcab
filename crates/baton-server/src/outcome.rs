//! A job's last outcome: its newest finished execution.

use std::sync::Arc;

use baton::Result;
use baton::core::schedule::JobName;
use baton::core::{Execution, JobStore};

use tokio::task::JoinSet;

use crate::tail::{Executions, Hint, ceiling, newest};

/// How many of a job's newest executions are searched for a finished one.
const SEARCHED: u32 = 5;
/// How many of the newest executions of all jobs are read first for the last outcomes of
/// several jobs.
const SHARED: u32 = 100;

/// The newest finished execution of `job` among its five newest with ids below `ceiling`
/// (see [`execution_ceiling`]).
pub(crate) async fn last_outcome(
    store: &dyn JobStore,
    job: &JobName,
    ceiling: Option<i64>,
) -> Result<Option<Execution>> {
    let listing = Executions { store, job: Some(job.clone()), status: None };
    let recent = newest(&listing, ceiling, SEARCHED).await?;
    Ok(recent.into_iter().find(|execution| execution.status.is_final()))
}

/// The id above every execution recorded so far, `None` when there is none.
pub(crate) async fn execution_ceiling(store: &dyn JobStore, hint: &Hint) -> Result<Option<i64>> {
    ceiling(&Executions { store, job: None, status: None }, hint).await
}

/// The last outcome of each job, in order: from one read of the newest executions of all
/// jobs, which holds the answer for every job that ran recently, then searching concurrently
/// for the jobs it does not settle.
pub(crate) async fn last_outcomes(
    store: &Arc<dyn JobStore>,
    jobs: &[JobName],
    ceiling: Option<i64>,
) -> Result<Vec<Option<Execution>>> {
    let all = Executions { store: &**store, job: None, status: None };
    let recent = newest(&all, ceiling, SHARED).await?;
    let whole = recent.len() < SHARED as usize;
    let mut outcomes = vec![None; jobs.len()];
    let mut searches = JoinSet::new();
    for (slot, job) in jobs.iter().enumerate() {
        let mut own = recent.iter().filter(|execution| &execution.job == job);
        let newest_own: Vec<&Execution> = own.by_ref().take(SEARCHED as usize).collect();
        match newest_own.iter().find(|execution| execution.status.is_final()) {
            Some(last) => outcomes[slot] = Some((*last).clone()),
            None if whole || newest_own.len() == SEARCHED as usize => {}
            None => {
                let (store, job) = (store.clone(), job.clone());
                searches.spawn(async move { (slot, last_outcome(&*store, &job, ceiling).await) });
            }
        }
    }
    while let Some(joined) = searches.join_next().await {
        let (slot, outcome) = joined.map_err(|err| {
            baton::Error::new(baton::ErrorKind::Internal, format!("a search failed: {err}"))
        })?;
        outcomes[slot] = outcome?;
    }
    Ok(outcomes)
}
