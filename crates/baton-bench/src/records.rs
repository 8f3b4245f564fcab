//! Reading the execution records of a run back through the `JobStore`, page by page.

use baton::StoreTime;
use baton::core::job::ExecutionListParams;
use baton::core::schedule::JobName;
use baton::core::{Execution, ExecutionStatus, JobStore};

/// Which executions to read.
#[derive(Debug, Clone, Default)]
pub(crate) struct Filter {
    /// Only this job's.
    pub(crate) job: Option<JobName>,
    /// Only those in this status.
    pub(crate) status: Option<ExecutionStatus>,
    /// Only those scheduled at or after this instant.
    pub(crate) since: Option<StoreTime>,
    /// Only those scheduled before this instant.
    pub(crate) until: Option<StoreTime>,
}

/// Every execution the filter selects, by id.
pub(crate) async fn read(store: &dyn JobStore, filter: Filter) -> baton::Result<Vec<Execution>> {
    let mut params = ExecutionListParams {
        job: filter.job,
        status: filter.status,
        since: filter.since,
        until: filter.until,
        limit: 1000,
        ..ExecutionListParams::default()
    };
    let mut all = Vec::new();
    loop {
        let page = store.execution_list(params.clone()).await?;
        all.extend(page.items);
        match page.next {
            Some(next) => params.after = Some(next),
            None => return Ok(all),
        }
    }
}

/// The executions an audit of `[since, until)` needs: those scheduled in the window, and the
/// missed runs recorded before it that cover part of it.
pub(crate) async fn for_audit(
    store: &dyn JobStore,
    since: StoreTime,
    until: StoreTime,
) -> baton::Result<Vec<Execution>> {
    let window = Filter { since: Some(since), until: Some(until), ..Filter::default() };
    let mut executions = read(store, window).await?;
    let earlier =
        Filter { status: Some(ExecutionStatus::Missed), until: Some(since), ..Filter::default() };
    let covering = read(store, earlier).await?;
    executions
        .extend(covering.into_iter().filter(|e| e.covers_through.is_some_and(|t| t >= since)));
    Ok(executions)
}
