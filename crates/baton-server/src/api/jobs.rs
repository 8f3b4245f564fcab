//! `/api/v1/jobs` and `/api/v1/jobs/{name}`.

use axum::Json;
use axum::extract::{Path, State};
use baton::core::job::JobListParams;
use baton::core::schedule::JobName;

use crate::error::ApiResult;
use crate::params::{PageQuery, Query, name};
use crate::reads::{job_from, job_page_from};
use crate::state::AppState;
use crate::views::{JobView, PageView};

/// The jobs by id, each with its next fire and last outcome.
pub(crate) async fn list(
    State(state): State<AppState>,
    Query(query): Query<PageQuery>,
) -> ApiResult<Json<PageView<JobView>>> {
    let params =
        JobListParams { after: query.after()?, limit: query.limit()?, ..JobListParams::default() };
    let page = job_page_from(&state.backend.jobs(), params, &state.hints.executions).await?;
    Ok(Json(page))
}

/// One job with its next five fires and last outcome.
pub(crate) async fn one(
    State(state): State<AppState>,
    Path(job): Path<String>,
) -> ApiResult<Json<JobView>> {
    let job: JobName = name(&job)?;
    let view = job_from(&*state.backend.jobs(), &job, &state.hints.executions).await?;
    Ok(Json(view))
}
