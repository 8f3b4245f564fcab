//! `/api/v1/jobs` and `/api/v1/jobs/{name}`.

use axum::Json;
use axum::extract::{Path, State};
use baton::core::job::{JobListParams, job_not_registered};
use baton::core::schedule::JobName;

use crate::error::ApiResult;
use crate::outcome::{execution_ceiling, last_outcome, last_outcomes};
use crate::params::{PageQuery, Query, name};
use crate::state::AppState;
use crate::views::{JobView, PageView};

/// How many next fires one job's view lists.
const NEXT_FIRES: usize = 5;

/// The jobs by id, each with its next fire and last outcome.
pub(crate) async fn list(
    State(state): State<AppState>,
    Query(query): Query<PageQuery>,
) -> ApiResult<Json<PageView<JobView>>> {
    let store = state.backend.jobs();
    let params =
        JobListParams { after: query.after()?, limit: query.limit()?, ..JobListParams::default() };
    let page = store.job_list(params).await?;
    let now = store.now().await?;
    let ceiling = execution_ceiling(&*store, &state.hints.executions).await?;
    let names: Vec<JobName> = page.items.iter().map(|job| job.name().clone()).collect();
    let outcomes = last_outcomes(&store, &names, ceiling).await?;
    let items = page
        .items
        .iter()
        .zip(&outcomes)
        .map(|(job, last)| {
            JobView::from(job).with_next_fires(job, now, 1).with_last_outcome(last.as_ref())
        })
        .collect();
    Ok(Json(PageView { items, next: page.next.map(|cursor| cursor.to_string()) }))
}

/// One job with its next five fires and last outcome.
pub(crate) async fn one(
    State(state): State<AppState>,
    Path(job): Path<String>,
) -> ApiResult<Json<JobView>> {
    let job: JobName = name(&job)?;
    let store = state.backend.jobs();
    let record = store.job_get(&job).await?.ok_or_else(|| job_not_registered(&job))?;
    let now = store.now().await?;
    let ceiling = execution_ceiling(&*store, &state.hints.executions).await?;
    let last = last_outcome(&*store, &job, ceiling).await?;
    let view = JobView::from(&record).with_next_fires(&record, now, NEXT_FIRES);
    Ok(Json(view.with_last_outcome(last.as_ref())))
}
