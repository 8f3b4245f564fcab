//! Reading whole listings page by page, and the record an audit needs.

use super::{Execution, ExecutionListParams, ExecutionStatus, Job, JobListParams, JobStore};
use crate::error::Result;
use crate::schedule::JobName;
use crate::time::StoreTime;

/// Every job registered, changed or controlled at or after `updated_since` (every job when
/// `None`), by id.
pub async fn all_jobs(store: &dyn JobStore, updated_since: Option<StoreTime>) -> Result<Vec<Job>> {
    let mut params = JobListParams { limit: 1000, updated_since, ..JobListParams::default() };
    let mut jobs = Vec::new();
    loop {
        let page = store.job_list(params.clone()).await?;
        jobs.extend(page.items);
        match page.next {
            Some(next) => params.after = Some(next),
            None => return Ok(jobs),
        }
    }
}

/// Every execution the filters of `params` select, by id (its cursor and limit are ignored).
pub async fn all_executions(
    store: &dyn JobStore,
    params: ExecutionListParams,
) -> Result<Vec<Execution>> {
    let mut params = ExecutionListParams { after: None, limit: 1000, ..params };
    let mut executions = Vec::new();
    loop {
        let page = store.execution_list(params.clone()).await?;
        executions.extend(page.items);
        match page.next {
            Some(next) => params.after = Some(next),
            None => return Ok(executions),
        }
    }
}

/// The executions an audit of `[since, until)` needs: those scheduled in the window, and the
/// missed runs recorded before it that cover part of it.
pub async fn executions_for_audit(
    store: &dyn JobStore,
    job: Option<JobName>,
    since: StoreTime,
    until: StoreTime,
) -> Result<Vec<Execution>> {
    let window = ExecutionListParams {
        job: job.clone(),
        since: Some(since),
        until: Some(until),
        ..ExecutionListParams::default()
    };
    let mut executions = all_executions(store, window).await?;
    let earlier = ExecutionListParams {
        job,
        status: Some(ExecutionStatus::Missed),
        until: Some(since),
        ..ExecutionListParams::default()
    };
    let covering = all_executions(store, earlier).await?;
    executions
        .extend(covering.into_iter().filter(|e| e.covers_through.is_some_and(|t| t >= since)));
    Ok(executions)
}
