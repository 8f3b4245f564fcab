//! The read endpoints over a real SQLite store: listings, single records, pagination and the
//! errors of malformed input.

mod common;

use std::sync::atomic::Ordering;

use axum::http::StatusCode;
use baton::core::cluster::NodeLeaveParams;
use baton::core::{ExecutionStatus, Schedule};
use common::{Fixture, far_future, get};
use serde_json::json;

#[tokio::test]
async fn health_and_readiness() {
    let fixture = Fixture::new().await;
    let router = fixture.admin_router("admin-secret");
    let health = get(&router, "/healthz").await;
    assert_eq!((health.status, health.body["status"].as_str()), (StatusCode::OK, Some("ok")));
    let ready = get(&router, "/readyz").await;
    assert_eq!(ready.status, StatusCode::OK);
    assert_eq!(ready.body["node"], "node-a");

    fixture.node.ready.store(false, Ordering::SeqCst);
    let not_ready = get(&router, "/readyz").await;
    assert_eq!(not_ready.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(not_ready.code(), "not_ready");
    assert!(not_ready.message().contains("node-a"), "{}", not_ready.message());
}

#[tokio::test]
async fn nodes_page_by_cursor_and_filter_by_state() {
    let fixture = Fixture::new().await;
    fixture.node_registered("web-1").await;
    fixture.node_registered("web-2").await;
    let router = fixture.admin_router("admin-secret");

    let first = get(&router, "/api/v1/nodes?limit=1").await;
    assert_eq!(first.status, StatusCode::OK);
    assert_eq!(first.body["items"][0]["id"], "web-1");
    assert_eq!(first.body["items"][0]["state"], "active");
    assert_eq!(first.body["items"][0]["host"], "host-web-1");
    let next = first.body["next"].as_str().expect("a next page").to_string();
    let second = get(&router, &format!("/api/v1/nodes?limit=1&after={next}")).await;
    assert_eq!(second.body["items"][0]["id"], "web-2");

    let active = get(&router, "/api/v1/nodes?state=active").await;
    assert_eq!(active.body["items"].as_array().unwrap().len(), 2);
    let left = get(&router, "/api/v1/nodes?state=left").await;
    assert_eq!(left.body["items"].as_array().unwrap().len(), 0);

    let changes = get(&router, "/api/v1/nodes/changes?node=web-2").await;
    assert_eq!(changes.status, StatusCode::OK);
    assert_eq!(changes.body["items"][0]["reason"], "registered");
    assert_eq!(changes.body["items"][0]["to"], "active");
}

#[tokio::test]
async fn malformed_queries_answer_400_naming_the_value() {
    let fixture = Fixture::new().await;
    let router = fixture.admin_router("admin-secret");
    let cases = [
        ("/api/v1/nodes?after=42", "\"42\""),
        ("/api/v1/executions?after=cX", "\"cX\""),
        ("/api/v1/jobs?after=", "invalid cursor \"\""),
        ("/api/v1/history?after=c+5", "\"c 5\""),
        ("/api/v1/jobs?limit=0", "invalid page size 0"),
        ("/api/v1/jobs?limit=5000", "invalid page size 5000"),
        ("/api/v1/history?limit=ten", "\"ten\""),
        ("/api/v1/nodes?state=dead", "\"dead\""),
        ("/api/v1/executions?status=done", "\"done\""),
        ("/api/v1/batches?state=halfway", "\"halfway\""),
        ("/api/v1/leases/two%20words", "\"two words\""),
        ("/api/v1/jobs/two%20words", "\"two words\""),
        ("/api/v1/executions/x", "\"x\""),
        ("/api/v1/batches/-3", "\"-3\""),
    ];
    for (uri, named) in cases {
        let answer = get(&router, uri).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{uri}: {}", answer.text);
        assert_eq!(answer.code(), "invalid_input", "{uri}");
        assert!(answer.message().contains(named), "{uri}: {}", answer.message());
    }
}

#[tokio::test]
async fn leases_and_their_history() {
    let fixture = Fixture::new().await;
    fixture.lease_held("scheduler", "holder-1").await;
    let router = fixture.admin_router("admin-secret");

    let all = get(&router, "/api/v1/leases").await;
    assert_eq!(all.status, StatusCode::OK);
    let lease = &all.body["items"][0];
    assert_eq!(
        (lease["name"].as_str(), lease["state"].as_str()),
        (Some("scheduler"), Some("held"))
    );
    assert_eq!(lease["holder"], "holder-1");
    assert_eq!(lease["ttl_ms"], 60_000);

    let one = get(&router, "/api/v1/leases/scheduler").await;
    assert_eq!(one.body["holder"], "holder-1");
    let missing = get(&router, "/api/v1/leases/nothing-here").await;
    assert_eq!((missing.status, missing.code()), (StatusCode::NOT_FOUND, "not_found"));
    assert!(missing.message().contains("nothing-here"));

    let history = get(&router, "/api/v1/history?lease=scheduler").await;
    let change = &history.body["items"][0];
    assert_eq!(
        (change["holder"].as_str(), change["reason"].as_str()),
        (Some("holder-1"), Some("fresh"))
    );
    assert_eq!(change["token"], lease["token"]);
    assert!(change["previous_end"].is_null() && change["failover_ms"].is_null(), "{change}");
    assert!(history.body["next"].is_null());

    let released =
        common::post(&router, "/api/v1/leases/scheduler/force-release", Some("admin-secret"), None)
            .await;
    assert_eq!(released.status, StatusCode::OK, "{}", released.text);
    let ended = get(&router, "/api/v1/leases/scheduler").await.body["expires_at"].clone();
    fixture.lease_held("scheduler", "holder-2").await;
    let history = get(&router, "/api/v1/history?lease=scheduler").await;
    let takeover = &history.body["items"][1];
    assert_eq!(
        (takeover["holder"].as_str(), takeover["reason"].as_str()),
        (Some("holder-2"), Some("forced_release"))
    );
    assert_eq!(takeover["previous_end"], ended, "the forced release ends the term: {takeover}");
    let failover = takeover["failover_ms"].as_u64().expect("a failover in milliseconds");
    let at =
        |value: &serde_json::Value| value.as_str().unwrap().parse::<jiff::Timestamp>().unwrap();
    let gap = at(&takeover["at"]).as_millisecond() - at(&takeover["previous_end"]).as_millisecond();
    assert_eq!(i64::try_from(failover).unwrap(), gap, "{takeover}");
}

#[tokio::test]
async fn jobs_show_their_next_fires_and_last_outcome() {
    let fixture = Fixture::new().await;
    fixture.job("nightly", Schedule::once(far_future())).await;
    fixture.job("hourly", Schedule::every(std::time::Duration::from_secs(3600)).unwrap()).await;
    fixture.execution("nightly", "run-1", ExecutionStatus::Failed, Some("first try")).await;
    fixture.execution("nightly", "run-2", ExecutionStatus::Succeeded, Some("all good")).await;
    let router = fixture.admin_router("admin-secret");

    let list = get(&router, "/api/v1/jobs").await;
    assert_eq!(list.status, StatusCode::OK);
    let nightly = &list.body["items"][0];
    assert_eq!(nightly["name"], "nightly");
    assert_eq!(nightly["next_fires"], serde_json::json!(["2099-01-01T00:00:00.000Z"]));
    assert_eq!(nightly["last_outcome"]["status"], "succeeded");
    assert_eq!(nightly["last_outcome"]["fire_key"], "run-2");
    let hourly = &list.body["items"][1];
    assert_eq!(hourly["next_fires"].as_array().unwrap().len(), 1);
    assert!(hourly["last_outcome"].is_null());
    assert_eq!(hourly["policy"]["overlap"], "forbid");

    let one = get(&router, "/api/v1/jobs/hourly").await;
    let fires = one.body["next_fires"].as_array().unwrap();
    assert_eq!(fires.len(), 5);
    assert!(fires.iter().all(|fire| fire.as_str().unwrap().ends_with(":00:00.000Z")), "{fires:?}");

    let missing = get(&router, "/api/v1/jobs/unknown").await;
    assert_eq!((missing.status, missing.code()), (StatusCode::NOT_FOUND, "not_found"));
    assert!(missing.message().contains("unknown"));
}

#[tokio::test]
async fn executions_filter_page_and_show_their_output() {
    let fixture = Fixture::new().await;
    fixture.job("nightly", Schedule::once(far_future())).await;
    fixture.job("other", Schedule::once(far_future())).await;
    let failed = fixture.execution("nightly", "a", ExecutionStatus::Failed, Some("boom")).await;
    fixture.execution("nightly", "b", ExecutionStatus::Succeeded, None).await;
    fixture.execution("other", "c", ExecutionStatus::Succeeded, None).await;
    let router = fixture.admin_router("admin-secret");

    let of_job = get(&router, "/api/v1/executions?job=nightly&limit=1").await;
    assert_eq!(of_job.body["items"][0]["id"], failed.id);
    let next = of_job.body["next"].as_str().unwrap().to_string();
    let rest = get(&router, &format!("/api/v1/executions?job=nightly&limit=1&after={next}")).await;
    assert_eq!(rest.body["items"][0]["fire_key"], "b");

    let failures = get(&router, "/api/v1/executions?status=failed").await;
    let items = failures.body["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["trigger"], "external");

    let one = get(&router, &format!("/api/v1/executions/{}", failed.id)).await;
    assert_eq!(one.status, StatusCode::OK);
    assert_eq!(
        (one.body["status"].as_str(), one.body["output"].as_str()),
        (Some("failed"), Some("boom"))
    );
    assert_eq!(one.body["node"], "node-a");

    let missing = get(&router, "/api/v1/executions/999999").await;
    assert_eq!((missing.status, missing.code()), (StatusCode::NOT_FOUND, "not_found"));
}

#[tokio::test]
async fn batches_show_their_partitions_and_progress() {
    let fixture = Fixture::new().await;
    let node = fixture.node_registered("worker-1").await;
    let batch = fixture.batch("etl", &node).await;
    let router = fixture.admin_router("admin-secret");

    let list = get(&router, "/api/v1/batches?job=etl").await;
    assert_eq!(list.body["items"][0]["id"], batch.id);
    assert_eq!(list.body["items"][0]["strategy"], "free-for-all");
    let running = get(&router, "/api/v1/batches?state=running").await;
    assert_eq!(running.body["items"].as_array().unwrap().len(), 1);

    let one = get(&router, &format!("/api/v1/batches/{}?limit=2", batch.id)).await;
    assert_eq!(one.body["batch"]["state"], "running");
    let partitions = one.body["partitions"]["items"].as_array().unwrap();
    let seen: Vec<(&str, &str, u64)> = partitions
        .iter()
        .map(|p| {
            (
                p["key"].as_str().unwrap(),
                p["state"].as_str().unwrap(),
                p["progress"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(seen, [("p0", "completed", 1000), ("p1", "claimed", 400)]);
    assert_eq!(partitions[1]["node"], "worker-1");
    let next = one.body["partitions"]["next"].as_str().unwrap().to_string();
    let rest = get(&router, &format!("/api/v1/batches/{}?after={next}", batch.id)).await;
    assert_eq!(rest.body["partitions"]["items"][0]["state"], "pending");

    let missing = get(&router, "/api/v1/batches/424242").await;
    assert_eq!((missing.status, missing.code()), (StatusCode::NOT_FOUND, "not_found"));

    let none = get(&router, &format!("/api/v1/batches/{}/moves", batch.id)).await;
    assert_eq!(none.body["items"], serde_json::json!([]));
    let leave = NodeLeaveParams { node: node.id.clone(), token: node.token };
    fixture.backend.cluster().node_leave(leave).await.expect("leave");
    let moves = get(&router, &format!("/api/v1/batches/{}/moves", batch.id)).await;
    let moved = &moves.body["items"][0];
    assert_eq!(
        (&moved["key"], &moved["from"], &moved["to"], &moved["reason"], &moved["token"]),
        (&json!("p1"), &json!("worker-1"), &json!(null), &json!("failover"), &json!(null)),
        "{}",
        moves.text
    );
    assert_eq!(moves.body["items"].as_array().unwrap().len(), 1, "{}", moves.text);
    let missing = get(&router, "/api/v1/batches/424242/moves").await;
    assert_eq!((missing.status, missing.code()), (StatusCode::NOT_FOUND, "not_found"));
}

#[tokio::test]
async fn unknown_routes_and_the_openapi_document() {
    let fixture = Fixture::new().await;
    let router = fixture.admin_router("admin-secret");
    let missing = get(&router, "/api/v1/nothing").await;
    assert_eq!((missing.status, missing.code()), (StatusCode::NOT_FOUND, "not_found"));
    let request = axum::http::Request::delete("/api/v1/jobs").body(axum::body::Body::empty());
    let wrong_method = common::send(&router, request.unwrap()).await;
    assert_eq!(wrong_method.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(wrong_method.code(), "method_not_allowed", "{}", wrong_method.text);
    assert_eq!(
        wrong_method.message(),
        "DELETE is not served for /api/v1/jobs: see /api/v1/openapi.json"
    );
    let beyond = get(&router, "/api/v1/jobs?after=c99999999999999999999").await;
    assert_eq!((beyond.status, &beyond.body["items"]), (StatusCode::OK, &serde_json::json!([])));
    let document = get(&router, "/api/v1/openapi.json").await;
    assert_eq!(document.status, StatusCode::OK);
    assert_eq!(document.body["openapi"], "3.1.0");
    let actions = get(&router, "/api/v1/actions").await;
    assert_eq!(actions.body["items"], serde_json::json!([]));
}
