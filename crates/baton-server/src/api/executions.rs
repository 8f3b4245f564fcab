//! `/api/v1/executions` and `/api/v1/executions/{id}`.

use axum::Json;
use axum::extract::{Path, State};
use baton::core::ExecutionStatus;
use baton::core::job::ExecutionListParams;
use baton::core::schedule::JobName;

use crate::error::{ApiError, ApiResult};
use crate::params::{PageQuery, Query, id, optional};
use crate::state::AppState;
use crate::views::{ExecutionView, PageView};

#[derive(serde::Deserialize)]
pub(crate) struct ExecutionsQuery {
    job: Option<String>,
    status: Option<String>,
    #[serde(flatten)]
    page: PageQuery,
}

/// Executions by id, oldest first, optionally of one job and in one status.
pub(crate) async fn list(
    State(state): State<AppState>,
    Query(query): Query<ExecutionsQuery>,
) -> ApiResult<Json<PageView<ExecutionView>>> {
    let params = ExecutionListParams {
        job: optional::<JobName>(query.job.as_deref())?,
        status: optional::<ExecutionStatus>(query.status.as_deref())?,
        after: query.page.after()?,
        limit: query.page.limit()?,
        ..ExecutionListParams::default()
    };
    let page = state.backend.jobs().execution_list(params).await?;
    Ok(Json(PageView::of(&page)))
}

/// One execution, with its output.
pub(crate) async fn one(
    State(state): State<AppState>,
    Path(execution): Path<String>,
) -> ApiResult<Json<ExecutionView>> {
    let id = id("execution", &execution)?;
    let store = state.backend.jobs();
    let record = store.execution_get(id).await?;
    let record =
        record.ok_or_else(|| ApiError::not_found(format!("execution {id} does not exist")))?;
    let output = store.execution_output(id).await?;
    Ok(Json(ExecutionView::from(&record).with_output(output)))
}
