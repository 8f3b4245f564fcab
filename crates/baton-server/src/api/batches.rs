//! `/api/v1/batches` and `/api/v1/batches/{id}`.

use axum::Json;
use axum::extract::{Path, State};
use baton::core::cluster::{BatchListParams, BatchState, PartitionListParams, batch_not_found};
use baton::core::schedule::JobName;
use serde::Serialize;

use crate::error::ApiResult;
use crate::params::{PageQuery, Query, id, optional};
use crate::state::AppState;
use crate::views::{BatchView, PageView, PartitionView};

#[derive(serde::Deserialize)]
pub(crate) struct BatchesQuery {
    job: Option<String>,
    state: Option<String>,
    #[serde(flatten)]
    page: PageQuery,
}

/// Batches by id, optionally of one partitioned job and in one state.
pub(crate) async fn list(
    State(state): State<AppState>,
    Query(query): Query<BatchesQuery>,
) -> ApiResult<Json<PageView<BatchView>>> {
    let params = BatchListParams {
        name: optional::<JobName>(query.job.as_deref())?,
        state: optional::<BatchState>(query.state.as_deref())?,
        after: query.page.after()?,
        limit: query.page.limit()?,
    };
    let page = state.backend.cluster().batch_list(params).await?;
    Ok(Json(PageView::of(&page)))
}

/// One batch and a page of its partitions.
#[derive(Debug, Serialize)]
pub(crate) struct BatchDetail {
    batch: BatchView,
    partitions: PageView<PartitionView>,
}

/// One batch with a page of its partitions (node, state, progress).
pub(crate) async fn one(
    State(state): State<AppState>,
    Path(batch): Path<String>,
    Query(query): Query<PageQuery>,
) -> ApiResult<Json<BatchDetail>> {
    let id = id("batch", &batch)?;
    let store = state.backend.cluster();
    let params = PartitionListParams {
        after: query.after()?,
        limit: query.limit()?,
        ..PartitionListParams::new(id)
    };
    let record = store.batch_get(id).await?.ok_or_else(|| batch_not_found(id))?;
    let partitions = store.partition_list(params).await?;
    Ok(Json(BatchDetail { batch: BatchView::from(&record), partitions: PageView::of(&partitions) }))
}
