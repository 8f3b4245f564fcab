//! `/api/v1/leases`, `/api/v1/leases/{name}` and `/api/v1/history`.

use axum::Json;
use axum::extract::{Path, State};
use baton::{HistoryParams, LeaseName};

use crate::error::{ApiError, ApiResult};
use crate::params::{PageQuery, Query, name, optional};
use crate::state::AppState;
use crate::views::{LeaderChangeView, LeaseView, PageView};

/// Every lease, by name, with its state judged on the store's clock.
pub(crate) async fn list(State(state): State<AppState>) -> ApiResult<Json<PageView<LeaseView>>> {
    let store = state.backend.leases();
    let now = store.now().await?;
    let leases = store.list().await?;
    let items = leases.iter().map(|lease| LeaseView::at(lease, now)).collect();
    Ok(Json(PageView { items, next: None }))
}

/// One lease.
pub(crate) async fn one(
    State(state): State<AppState>,
    Path(lease): Path<String>,
) -> ApiResult<Json<LeaseView>> {
    let lease: LeaseName = name(&lease)?;
    let store = state.backend.leases();
    let now = store.now().await?;
    let record = store.get(&lease).await?.ok_or_else(|| lease_not_found(&lease))?;
    Ok(Json(LeaseView::at(&record, now)))
}

/// The 404 for a lease that has no record.
pub(crate) fn lease_not_found(lease: &LeaseName) -> ApiError {
    ApiError::not_found(format!("lease {lease} does not exist"))
}

#[derive(serde::Deserialize)]
pub(crate) struct HistoryQuery {
    lease: Option<String>,
    #[serde(flatten)]
    page: PageQuery,
}

/// The leader-change history, oldest first, optionally of one lease.
pub(crate) async fn history(
    State(state): State<AppState>,
    Query(query): Query<HistoryQuery>,
) -> ApiResult<Json<PageView<LeaderChangeView>>> {
    let params = HistoryParams {
        lease: optional::<LeaseName>(query.lease.as_deref())?,
        after: query.page.after()?,
        limit: query.page.limit()?,
    };
    let page = state.backend.leases().history(params).await?;
    Ok(Json(PageView::of(&page)))
}
