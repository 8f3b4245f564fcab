//! The HTTP surface of a baton agent: a JSON API under `/api/v1`, Prometheus metrics at
//! `/metrics`, health checks at `/healthz` and `/readyz`, and a server-rendered dashboard at
//! `/`.
//!
//! ```no_run
//! # async fn example(node: std::sync::Arc<dyn baton_server::LocalNode>) -> anyhow::Result<()> {
//! let backend = baton::connect("sqlite://baton.db").await?;
//! let config = baton_server::ServerConfig { admin_token: Some("s3cret".into()), read_token: None };
//! let app = baton_server::router(backend, node, config);
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:9090").await?;
//! // Serves until Ctrl-C; the peer address goes into the log of admin actions.
//! baton_server::serve(listener, app, async {
//!     let _ = tokio::signal::ctrl_c().await;
//! })
//! .await?;
//! # Ok(())
//! # }
//! ```
//!
//! The endpoints, their errors and the metrics are described in `docs/api.md`.

mod api;
mod auth;
mod dashboard;
mod error;
mod limits;
pub mod metrics;
mod openapi;
mod outcome;
mod params;
pub mod reads;
mod routes;
mod serve;
mod state;
mod tail;
pub mod views;

use std::sync::Arc;

use axum::Router;

pub use error::ApiError;
pub use limits::{MAX_BODY_BYTES, MAX_HEADER_BYTES, MAX_HEADER_FIELDS, MAX_URI_BYTES};
pub use serve::serve;

/// Who may call what.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ServerConfig {
    /// The bearer token that admin actions require; `None` disables them (403).
    pub admin_token: Option<String>,
    /// The bearer token reads require (the admin token is accepted too); `None` leaves reads
    /// open.
    pub read_token: Option<String>,
}

impl std::fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let set = |token: &Option<String>| if token.is_some() { "set" } else { "none" };
        f.debug_struct("ServerConfig")
            .field("admin_token", &set(&self.admin_token))
            .field("read_token", &set(&self.read_token))
            .finish()
    }
}

/// The node this server runs in, as the agent sees it.
#[async_trait::async_trait]
pub trait LocalNode: Send + Sync + 'static {
    /// This node's id as registered in the cluster.
    fn node_id(&self) -> String;
    /// Whether the node is connected and registered (answers /readyz).
    fn is_ready(&self) -> bool;
    /// Steps down from `lease` if this node holds it: Ok(true) stepped down, Ok(false) not
    /// held here.
    async fn step_down(&self, lease: &baton::LeaseName) -> baton::Result<bool>;
    /// Starts a batch of the partitioned job `job` on this node and answers its id; `None`
    /// when this node does not run that job (the default: a node without partitioned jobs).
    async fn start_batch(
        &self,
        job: &baton::core::schedule::JobName,
    ) -> baton::Result<Option<i64>> {
        let _ = job;
        Ok(None)
    }
}

/// The whole HTTP surface over `backend`. Installs the Prometheus recorder if no recorder is
/// installed yet (see [`metrics::install`]).
///
/// Serve it with [`serve`], which hands each request the caller's address for the log of
/// admin actions and answers oversized request heads in JSON.
pub fn router(backend: baton::Backend, node: Arc<dyn LocalNode>, config: ServerConfig) -> Router {
    if let Err(err) = metrics::install() {
        tracing::warn!(%err, "metrics from this process will be missing from /metrics");
    }
    let state = state::AppState {
        backend,
        node,
        config: Arc::new(config),
        collector: Arc::new(metrics::Collector::default()),
        hints: Arc::new(state::Hints::default()),
    };
    let (router, _) = routes(&state);
    router
        .fallback(no_route)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn(limits::limit_request))
        .with_state(state)
}

/// Every route, and the table of their methods and paths.
fn routes(state: &state::AppState) -> (Router<state::AppState>, Vec<routes::Route>) {
    api::routes(state).merge(dashboard::routes(state)).finish()
}

/// The 405 of a method that a served path does not answer (the `Allow` header lists those it
/// does).
async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> ApiError {
    ApiError::new(
        axum::http::StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("{method} is not served for {}: see /api/v1/openapi.json", uri.path()),
    )
}

/// The 404 of a path that no route serves.
async fn no_route(uri: axum::http::Uri) -> ApiError {
    ApiError::not_found(format!("no route for {}: see /api/v1/openapi.json", uri.path()))
}
