//! `/api/v1/batches`, `/api/v1/batches/{id}` and `/api/v1/batches/{id}/moves`.

use axum::Json;
use axum::extract::{Path, State};
use baton::core::cluster::{
    BatchListParams, BatchState, PartitionListParams, PartitionMovesParams, batch_not_found,
};
use baton::core::schedule::JobName;

use crate::error::ApiResult;
use crate::params::{PageQuery, Query, id, optional};
use crate::state::AppState;
use crate::views::{BatchDetailView, BatchView, MoveView, PageView};

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

/// One batch with a page of its partitions (node, state, progress).
pub(crate) async fn one(
    State(state): State<AppState>,
    Path(batch): Path<String>,
    Query(query): Query<PageQuery>,
) -> ApiResult<Json<BatchDetailView>> {
    let id = id("batch", &batch)?;
    let store = state.backend.cluster();
    let params = PartitionListParams {
        after: query.after()?,
        limit: query.limit()?,
        ..PartitionListParams::new(id)
    };
    let record = store.batch_get(id).await?.ok_or_else(|| batch_not_found(id))?;
    let partitions = store.partition_list(params).await?;
    Ok(Json(BatchDetailView {
        batch: BatchView::from(&record),
        partitions: PageView::of(&partitions),
    }))
}

/// A page of a batch's moves (join, steal, failover), oldest first.
pub(crate) async fn moves(
    State(state): State<AppState>,
    Path(batch): Path<String>,
    Query(query): Query<PageQuery>,
) -> ApiResult<Json<PageView<MoveView>>> {
    let id = id("batch", &batch)?;
    let store = state.backend.cluster();
    store.batch_get(id).await?.ok_or_else(|| batch_not_found(id))?;
    let params = PartitionMovesParams { batch: id, after: query.after()?, limit: query.limit()? };
    let page = store.partition_moves(params).await?;
    Ok(Json(PageView::of(&page)))
}
