//! `--output json`: each command prints the JSON the HTTP API answers for the same records,
//! compared with the API's answer over the same SQLite store.

mod common;
mod seed;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::connect_info::MockConnectInfo;
use axum::http::{Request, StatusCode};
use baton::core::ExecutionStatus;
use baton_server::{LocalNode, ServerConfig};
use common::*;
use serde_json::Value;
use tower::ServiceExt;

/// A node that holds nothing.
struct Idle;

#[async_trait::async_trait]
impl LocalNode for Idle {
    fn node_id(&self) -> String {
        "node-a".into()
    }
    fn is_ready(&self) -> bool {
        true
    }
    async fn step_down(&self, _: &baton::LeaseName) -> baton::Result<bool> {
        Ok(false)
    }
}

/// The API's JSON answer to `GET path` over `backend`.
async fn api(backend: &baton::Backend, path: &str) -> Value {
    let peer: SocketAddr = "127.0.0.1:40404".parse().unwrap();
    let router = baton_server::router(backend.clone(), Arc::new(Idle), ServerConfig::default())
        .layer(MockConnectInfo(peer));
    let request = Request::get(path).body(Body::empty()).unwrap();
    let response = router.oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK, "GET {path}");
    let body = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
    serde_json::from_slice(&body).unwrap()
}

/// What `baton --output json ARGS` printed, parsed.
fn cli(store: &Store, args: &[&str]) -> Value {
    let out = store.run(&[&["--output", "json"], args].concat());
    assert!(out.status.success(), "baton {args:?}: {}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap_or_else(|err| panic!("{err}: {}", stdout(&out)))
}

#[tokio::test]
async fn json_output_is_the_api_answer_for_the_same_records() {
    let store = store();
    let backend = baton::connect(&store.url).await.unwrap();
    backend.migrate().await.unwrap();
    seed::job(&backend, "nightly").await;
    seed::job(&backend, "hourly").await;
    let failed =
        seed::execution(&backend, "nightly", "k1", ExecutionStatus::Failed, Some("disk full\n"))
            .await;
    seed::execution(&backend, "hourly", "k2", ExecutionStatus::Succeeded, None).await;
    let node = seed::node(&backend, "node-a").await;
    seed::node(&backend, "node-b").await;
    let batch = seed::batch(&backend, "reindex", &node).await;
    seed::leader(&backend, "settlement", "node-a").await;

    let id = failed.id.to_string();
    let batch_id = batch.id.to_string();
    let pairs: [(&[&str], String); 8] = [
        (&["jobs", "list"], "/api/v1/jobs".into()),
        (&["jobs", "show", "nightly"], "/api/v1/jobs/nightly".into()),
        (&["executions", "list"], "/api/v1/executions".into()),
        (&["executions", "show", &id], format!("/api/v1/executions/{id}")),
        (&["nodes"], "/api/v1/nodes".into()),
        (&["nodes", "changes"], "/api/v1/nodes/changes".into()),
        (&["batch", "list"], "/api/v1/batches".into()),
        (&["history"], "/api/v1/history".into()),
    ];
    for (args, path) in pairs {
        assert_eq!(cli(&store, args), api(&backend, &path).await, "baton {args:?} vs GET {path}");
    }
    let shown = cli(&store, &["executions", "show", &id]);
    assert_eq!(shown["output"], "disk full\n");
    assert_eq!(cli(&store, &["jobs", "list"])["items"].as_array().unwrap().len(), 2);

    // The batch status holds every partition; the API's page of 100 holds all three too.
    let status = cli(&store, &["batch", "status", &batch_id]);
    assert_eq!(status, api(&backend, &format!("/api/v1/batches/{batch_id}")).await);
    assert_eq!(status["partitions"]["items"].as_array().unwrap().len(), 3);

    // Lease states are judged on the store's clock at each read: the same while held.
    assert_eq!(cli(&store, &["lease", "list"]), api(&backend, "/api/v1/leases").await);
    assert_eq!(
        cli(&store, &["lease", "get", "settlement"]),
        api(&backend, "/api/v1/leases/settlement").await
    );
}

#[test]
fn the_output_format_comes_from_the_environment_too() {
    let store = store();
    let out = std::process::Command::new(BATON)
        .env("BATON_BACKEND", &store.url)
        .env("BATON_OUTPUT", "json")
        .args(["nodes"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let page: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(page, serde_json::json!({ "items": [], "next": null }));
}

#[test]
fn an_unknown_output_format_is_refused_on_one_line() {
    let store = store();
    let out = store.run(&["--output", "yaml", "nodes"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), "");
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("yaml") && err.contains("table") && err.contains("json"), "{err}");
}
