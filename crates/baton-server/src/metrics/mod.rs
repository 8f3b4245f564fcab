//! `/metrics` in the Prometheus text format: what this process recorded through the
//! [`metrics`] facade (lease renewals, executions, fire lag, skipped and missed
//! fires; names in [`baton::metrics`]), followed by what the stores show at scrape time
//! (current leaders, leader changes, failover durations, node states, partition progress),
//! read with bounded queries.

mod cluster;
mod collector;
mod exposition;
mod histogram;
mod leaders;

use std::sync::OnceLock;
use std::time::Duration;

use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use metrics_exporter_prometheus::{BuildError, PrometheusBuilder, PrometheusHandle};

use crate::error::ApiResult;
use crate::state::AppState;

pub(crate) use collector::Collector;

/// Histogram buckets, in seconds, for renew latency and fire lag.
const BUCKETS: [f64; 14] =
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 60.0];

/// How often recorded histogram samples are folded into their buckets between scrapes.
const UPKEEP: Duration = Duration::from_secs(5);

/// Why the Prometheus recorder could not be installed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum MetricsError {
    /// The recorder could not be built.
    #[error("cannot build the Prometheus recorder: {0}")]
    Build(String),
    /// Another recorder was installed in this process first.
    #[error("another metrics recorder is already installed in this process")]
    OtherRecorder,
}

static INSTALLED: OnceLock<Result<PrometheusHandle, MetricsError>> = OnceLock::new();

/// Installs the Prometheus recorder as this process's `metrics` recorder, once; later calls
/// answer the first call's outcome. Call it early so that nothing recorded before the server
/// starts is lost ([`router`](crate::router) calls it too).
pub fn install() -> Result<(), MetricsError> {
    INSTALLED.get_or_init(build_and_install).as_ref().map(|_| ()).map_err(Clone::clone)
}

fn build_and_install() -> Result<PrometheusHandle, MetricsError> {
    let recorder = PrometheusBuilder::new()
        .set_buckets(&BUCKETS)
        .map_err(|err: BuildError| MetricsError::Build(err.to_string()))?
        .build_recorder();
    let handle = recorder.handle();
    ::metrics::set_global_recorder(recorder).map_err(|_| MetricsError::OtherRecorder)?;
    baton::metrics::describe();
    let upkeep = handle.clone();
    std::thread::Builder::new()
        .name("baton-metrics-upkeep".into())
        .spawn(move || {
            loop {
                std::thread::sleep(UPKEEP);
                upkeep.run_upkeep();
            }
        })
        .map_err(|err| MetricsError::Build(format!("cannot start the upkeep thread: {err}")))?;
    Ok(handle)
}

/// The metrics endpoint.
pub(crate) async fn scrape(State(state): State<AppState>) -> ApiResult<impl IntoResponse> {
    let mut text = match INSTALLED.get() {
        Some(Ok(handle)) => handle.render(),
        _ => String::new(),
    };
    text.push_str(&state.collector.collect(&state.backend).await?);
    Ok(([(CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")], text))
}
