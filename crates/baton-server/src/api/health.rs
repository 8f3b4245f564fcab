//! `/healthz` and `/readyz`.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// 200 while the process runs.
pub(crate) async fn healthz() -> Json<Value> {
    Json(json!({ "status": "ok" }))
}

/// 200 when the node is registered and the store answers a cheap read; 503 otherwise.
pub(crate) async fn readyz(State(state): State<AppState>) -> ApiResult<Json<Value>> {
    if !state.node.is_ready() {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "not_ready",
            format!("node {} is not connected and registered yet", state.node.node_id()),
        ));
    }
    let now = state.backend.leases().now().await.map_err(|err| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            format!("the store did not answer: {err}"),
        )
    })?;
    Ok(Json(
        json!({ "status": "ready", "node": state.node.node_id(), "store_time": now.to_string() }),
    ))
}
