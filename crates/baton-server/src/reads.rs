//! Reads shared by the API and the command line: the views of jobs as the API answers them
//! (with next fires and last outcomes), and the newest executions in given statuses.

use std::sync::Arc;

use baton::Result;
use baton::core::job::{JobListParams, job_not_registered};
use baton::core::schedule::JobName;
use baton::core::{Execution, ExecutionStatus, JobStore};

use crate::outcome::{execution_ceiling, last_outcome, last_outcomes};
use crate::tail::{Executions, Hint, newest};
use crate::views::{JobView, PageView};

/// How many next fires the view of one job lists (a listing shows one per job).
const NEXT_FIRES: usize = 5;

/// A page of jobs by id, each with its next fire and last outcome.
pub async fn job_page(
    store: &Arc<dyn JobStore>,
    params: JobListParams,
) -> Result<PageView<JobView>> {
    job_page_from(store, params, &Hint::default()).await
}

/// One job with its next five fires and last outcome; NotFound when it is not registered.
pub async fn job(store: &dyn JobStore, job: &JobName) -> Result<JobView> {
    job_from(store, job, &Hint::default()).await
}

/// [`job_page`], searching for the newest execution from where `hint` last ended.
pub(crate) async fn job_page_from(
    store: &Arc<dyn JobStore>,
    params: JobListParams,
    hint: &Hint,
) -> Result<PageView<JobView>> {
    let page = store.job_list(params).await?;
    let now = store.now().await?;
    let ceiling = execution_ceiling(&**store, hint).await?;
    let names: Vec<JobName> = page.items.iter().map(|job| job.name().clone()).collect();
    let outcomes = last_outcomes(store, &names, ceiling).await?;
    let items = page
        .items
        .iter()
        .zip(&outcomes)
        .map(|(job, last)| {
            JobView::from(job).with_next_fires(job, now, 1).with_last_outcome(last.as_ref())
        })
        .collect();
    Ok(PageView { items, next: page.next.map(|cursor| cursor.to_string()) })
}

/// [`job`], searching for the newest execution from where `hint` last ended.
pub(crate) async fn job_from(store: &dyn JobStore, job: &JobName, hint: &Hint) -> Result<JobView> {
    let record = store.job_get(job).await?.ok_or_else(|| job_not_registered(job))?;
    let now = store.now().await?;
    let ceiling = execution_ceiling(store, hint).await?;
    let last = last_outcome(store, job, ceiling).await?;
    let view = JobView::from(&record).with_next_fires(&record, now, NEXT_FIRES);
    Ok(view.with_last_outcome(last.as_ref()))
}

/// The newest `count` executions (1 to 1000) in any of `statuses`, newest first: a few short
/// indexed reads per status, whatever the size of the history.
pub async fn newest_executions(
    store: &dyn JobStore,
    statuses: &[ExecutionStatus],
    count: u32,
) -> Result<Vec<Execution>> {
    let ceiling = execution_ceiling(store, &Hint::default()).await?;
    let mut found = Vec::new();
    for status in statuses {
        let listing = Executions { store, job: None, status: Some(*status) };
        found.extend(newest(&listing, ceiling, count).await?);
    }
    found.sort_unstable_by_key(|execution| std::cmp::Reverse(execution.id));
    found.truncate(count as usize);
    Ok(found)
}
