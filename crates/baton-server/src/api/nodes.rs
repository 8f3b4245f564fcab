//! `/api/v1/nodes` and `/api/v1/nodes/changes`.

use axum::Json;
use axum::extract::State;
use baton::core::cluster::{NodeChangesParams, NodeId, NodeListParams, NodeState};

use crate::error::ApiResult;
use crate::params::{PageQuery, Query, optional};
use crate::state::AppState;
use crate::views::{NodeChangeView, NodeView, PageView};

#[derive(serde::Deserialize)]
pub(crate) struct NodesQuery {
    state: Option<String>,
    #[serde(flatten)]
    page: PageQuery,
}

/// The nodes, by registration order, optionally in one state.
pub(crate) async fn list(
    State(state): State<AppState>,
    Query(query): Query<NodesQuery>,
) -> ApiResult<Json<PageView<NodeView>>> {
    let params = NodeListParams {
        state: optional::<NodeState>(query.state.as_deref())?,
        after: query.page.after()?,
        limit: query.page.limit()?,
    };
    let page = state.backend.cluster().node_list(params).await?;
    Ok(Json(PageView::of(&page)))
}

#[derive(serde::Deserialize)]
pub(crate) struct ChangesQuery {
    node: Option<String>,
    #[serde(flatten)]
    page: PageQuery,
}

/// The history of node state changes, oldest first, optionally of one node.
pub(crate) async fn changes(
    State(state): State<AppState>,
    Query(query): Query<ChangesQuery>,
) -> ApiResult<Json<PageView<NodeChangeView>>> {
    let params = NodeChangesParams {
        node: optional::<NodeId>(query.node.as_deref())?,
        after: query.page.after()?,
        limit: query.page.limit()?,
    };
    let page = state.backend.cluster().node_changes(params).await?;
    Ok(Json(PageView::of(&page)))
}
