//! The JSON API under `/api/v1`, the health checks and the metrics endpoint.

mod actions;
mod admin;
mod batches;
mod executions;
mod health;
mod jobs;
mod leases;
mod nodes;

pub(crate) use leases::lease_not_found;

use axum::middleware::from_fn_with_state;
use axum::routing::{get, post};

use crate::auth::{require_admin, require_read};
use crate::routes::Routes;
use crate::state::AppState;

/// Every API route: health checks open, reads behind the read token, admin actions behind
/// the admin token.
pub(crate) fn routes(state: &AppState) -> Routes {
    let open =
        Routes::new().get("/healthz", get(health::healthz)).get("/readyz", get(health::readyz));
    let reads = Routes::new()
        .get("/metrics", get(crate::metrics::scrape))
        .get("/api/v1/openapi.json", get(crate::openapi::document))
        .get("/api/v1/nodes", get(nodes::list))
        .get("/api/v1/nodes/changes", get(nodes::changes))
        .get("/api/v1/leases", get(leases::list))
        .get("/api/v1/leases/{name}", get(leases::one))
        .get("/api/v1/history", get(leases::history))
        .get("/api/v1/jobs", get(jobs::list))
        .get("/api/v1/jobs/{name}", get(jobs::one))
        .get("/api/v1/executions", get(executions::list))
        .get("/api/v1/executions/{id}", get(executions::one))
        .get("/api/v1/batches", get(batches::list))
        .get("/api/v1/batches/{id}", get(batches::one))
        .get("/api/v1/batches/{id}/moves", get(batches::moves))
        .get("/api/v1/actions", get(actions::list))
        .layer(|router| router.route_layer(from_fn_with_state(state.clone(), require_read)));
    let admin = Routes::new()
        .post("/api/v1/jobs/{name}/trigger", post(admin::trigger))
        .post("/api/v1/jobs/{name}/pause", post(admin::pause))
        .post("/api/v1/jobs/{name}/resume", post(admin::resume))
        .post("/api/v1/jobs/{name}/skip-next", post(admin::skip_next))
        .post("/api/v1/leases/{name}/force-release", post(admin::force_release))
        .post("/api/v1/leases/{name}/step-down", post(admin::step_down))
        .post("/api/v1/batches", post(admin::start_batch))
        .layer(|router| router.route_layer(from_fn_with_state(state.clone(), require_admin)));
    open.merge(reads).merge(admin)
}
