//! `/api/v1/actions`: the log of admin actions.

use axum::Json;
use axum::extract::State;
use baton::core::action::ActionListParams;

use crate::error::ApiResult;
use crate::params::{PageQuery, Query};
use crate::state::AppState;
use crate::views::{ActionView, PageView};

/// Admin actions, oldest first.
pub(crate) async fn list(
    State(state): State<AppState>,
    Query(query): Query<PageQuery>,
) -> ApiResult<Json<PageView<ActionView>>> {
    let params = ActionListParams { after: query.after()?, limit: query.limit()? };
    let page = state.backend.actions().action_list(params).await?;
    Ok(Json(PageView::of(&page)))
}
