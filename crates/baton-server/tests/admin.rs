//! Admin actions and authentication: refusals change nothing, and every action that
//! succeeded is on record with who asked and from where.

mod common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use baton::core::Schedule;
use baton_server::ServerConfig;
use common::{Fixture, PEER, far_future, get, get_with, job_name, post, send};

const ADMIN: &str = "admin-secret";

async fn paused(fixture: &Fixture, job: &str) -> bool {
    fixture.backend.jobs().job_get(&job_name(job)).await.unwrap().unwrap().paused
}

async fn actions(fixture: &Fixture) -> serde_json::Value {
    let router = fixture.admin_router(ADMIN);
    get(&router, "/api/v1/actions").await.body["items"].clone()
}

#[tokio::test]
async fn refusals_change_nothing() {
    let fixture = Fixture::new().await;
    fixture.job("nightly", Schedule::once(far_future())).await;

    let disabled = fixture.router(ServerConfig::default());
    let answer = post(&disabled, "/api/v1/jobs/nightly/pause", Some(ADMIN), None).await;
    assert_eq!((answer.status, answer.code()), (StatusCode::FORBIDDEN, "forbidden"));
    assert!(answer.message().contains("set an admin token"), "{}", answer.message());

    let router = fixture.admin_router(ADMIN);
    let missing = post(&router, "/api/v1/jobs/nightly/pause", None, None).await;
    assert_eq!((missing.status, missing.code()), (StatusCode::UNAUTHORIZED, "unauthorized"));
    assert!(missing.message().contains("Authorization: Bearer"), "{}", missing.message());
    let wrong = post(&router, "/api/v1/jobs/nightly/pause", Some("admin-secreT"), None).await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
    let longer = post(&router, "/api/v1/jobs/nightly/pause", Some("admin-secret!"), None).await;
    assert_eq!(longer.status, StatusCode::UNAUTHORIZED);

    let read_token = fixture.router(ServerConfig {
        admin_token: Some(ADMIN.into()),
        read_token: Some("reader".into()),
    });
    let reader = post(&read_token, "/api/v1/jobs/nightly/pause", Some("reader"), None).await;
    assert_eq!(reader.status, StatusCode::UNAUTHORIZED, "the read token does not admin");

    assert!(!paused(&fixture, "nightly").await);
    assert_eq!(actions(&fixture).await, serde_json::json!([]));
}

#[tokio::test]
async fn actions_are_recorded_with_the_actor_and_peer() {
    let fixture = Fixture::new().await;
    fixture.job("nightly", Schedule::once(far_future())).await;
    let router = fixture.admin_router(ADMIN);

    let paused_job = post(&router, "/api/v1/jobs/nightly/pause", Some(ADMIN), Some("alice")).await;
    assert_eq!(paused_job.status, StatusCode::OK, "{}", paused_job.text);
    assert_eq!(paused_job.body["paused"], true);
    assert!(paused(&fixture, "nightly").await);

    let too_long = "x".repeat(101);
    let refused = post(&router, "/api/v1/jobs/nightly/resume", Some(ADMIN), Some(&too_long)).await;
    assert_eq!((refused.status, refused.code()), (StatusCode::BAD_REQUEST, "invalid_input"));
    assert!(refused.message().starts_with("invalid X-Baton-Actor header of 101 bytes"));
    assert!(paused(&fixture, "nightly").await, "a refused action changes nothing");
    let resumed = post(&router, "/api/v1/jobs/nightly/resume", Some(ADMIN), None).await;
    assert_eq!(resumed.body["paused"], false);

    let log = actions(&fixture).await;
    let log = log.as_array().unwrap();
    assert_eq!(log.len(), 2);
    assert_eq!(log[0]["actor"], "alice");
    assert_eq!(log[0]["action"], "job.pause");
    assert_eq!(log[0]["target"], "job/nightly");
    let detail = log[0]["detail"].as_str().unwrap();
    assert!(detail.contains(PEER) && detail.contains("paused"), "{detail}");
    assert_eq!(log[1]["actor"], "api", "no actor header is recorded as api");
    assert_eq!(log[1]["action"], "job.resume");
}

#[tokio::test]
async fn trigger_and_skip_next() {
    let fixture = Fixture::new().await;
    fixture.job("nightly", Schedule::once(far_future())).await;
    let router = fixture.admin_router(ADMIN);

    let triggered = post(&router, "/api/v1/jobs/nightly/trigger", Some(ADMIN), None).await;
    assert_eq!(triggered.status, StatusCode::OK, "{}", triggered.text);
    assert_eq!(triggered.body["recorded"], true);
    assert_eq!(triggered.body["execution"]["status"], "scheduled");
    assert_eq!(triggered.body["execution"]["trigger"], "manual");
    let id = triggered.body["execution"]["id"].as_i64().unwrap();
    assert_eq!(get(&router, &format!("/api/v1/executions/{id}")).await.body["job"], "nightly");

    let skipped = post(&router, "/api/v1/jobs/nightly/skip-next", Some(ADMIN), None).await;
    assert_eq!(skipped.body["skipped"], "2099-01-01T00:00:00.000Z");
    let job = get(&router, "/api/v1/jobs/nightly").await;
    assert_eq!(job.body["skip_through"], "2099-01-01T00:00:00.000Z");
    assert_eq!(job.body["next_fires"], serde_json::json!([]));
    let nothing_left = post(&router, "/api/v1/jobs/nightly/skip-next", Some(ADMIN), None).await;
    assert_eq!((nothing_left.status, nothing_left.code()), (StatusCode::CONFLICT, "conflict"));

    let unknown = post(&router, "/api/v1/jobs/unknown/trigger", Some(ADMIN), None).await;
    assert_eq!((unknown.status, unknown.code()), (StatusCode::NOT_FOUND, "not_found"));
    let bad_name = post(&router, "/api/v1/jobs/a%20b/pause", Some(ADMIN), None).await;
    assert_eq!(bad_name.status, StatusCode::BAD_REQUEST);

    let log = actions(&fixture).await;
    let names: Vec<&str> =
        log.as_array().unwrap().iter().map(|a| a["action"].as_str().unwrap()).collect();
    assert_eq!(names, ["job.trigger", "job.skip_next"], "refused actions are not recorded");
}

#[tokio::test]
async fn force_release_and_step_down() {
    let fixture = Fixture::new().await;
    fixture.lease_held("scheduler", "holder-1").await;
    fixture.lease_held("reports", "node-a").await;
    fixture.node.held.lock().unwrap().insert("reports".into());
    let router = fixture.admin_router(ADMIN);

    let released = post(&router, "/api/v1/leases/scheduler/force-release", Some(ADMIN), None).await;
    assert_eq!(released.status, StatusCode::OK, "{}", released.text);
    assert_eq!(released.body["released"], true);
    assert_eq!(released.body["previous"]["holder"], "holder-1");
    assert_eq!(get(&router, "/api/v1/leases/scheduler").await.body["state"], "forced");
    let again = post(&router, "/api/v1/leases/scheduler/force-release", Some(ADMIN), None).await;
    assert_eq!(again.body["released"], false);

    let not_here = post(&router, "/api/v1/leases/scheduler/step-down", Some(ADMIN), None).await;
    assert_eq!((not_here.status, not_here.code()), (StatusCode::CONFLICT, "not_held"));
    let stepped = post(&router, "/api/v1/leases/reports/step-down", Some(ADMIN), Some("bob")).await;
    assert_eq!(stepped.status, StatusCode::OK);
    assert_eq!(stepped.body["node"], "node-a");
    assert!(fixture.node.held.lock().unwrap().is_empty());
    let unknown = post(&router, "/api/v1/leases/nothing/force-release", Some(ADMIN), None).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);

    let log = actions(&fixture).await;
    let names: Vec<(&str, &str)> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["action"].as_str().unwrap(), a["actor"].as_str().unwrap()))
        .collect();
    assert_eq!(
        names,
        [
            ("lease.force_release", "api"),
            ("lease.force_release", "api"),
            ("lease.step_down", "bob")
        ]
    );
}

#[tokio::test]
async fn oversized_bodies_are_refused_with_413() {
    let fixture = Fixture::new().await;
    fixture.job("nightly", Schedule::once(far_future())).await;
    let router = fixture.admin_router(ADMIN);
    let big = vec![b'x'; baton_server::MAX_BODY_BYTES + 1];

    let declared = Request::post("/api/v1/jobs/nightly/pause")
        .header("authorization", format!("Bearer {ADMIN}"))
        .header("content-length", big.len())
        .body(Body::from(big.clone()))
        .unwrap();
    let answer = send(&router, declared).await;
    assert_eq!(
        (answer.status, answer.code()),
        (StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large")
    );

    let undeclared = Request::post("/api/v1/jobs/nightly/pause")
        .header("authorization", format!("Bearer {ADMIN}"))
        .body(Body::from(big))
        .unwrap();
    let answer = send(&router, undeclared).await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);

    assert!(!paused(&fixture, "nightly").await);
    assert_eq!(actions(&fixture).await, serde_json::json!([]));
}

#[tokio::test]
async fn a_read_token_guards_reads_but_not_health_or_assets() {
    let fixture = Fixture::new().await;
    let router = fixture.router(ServerConfig {
        admin_token: Some(ADMIN.into()),
        read_token: Some("reader".into()),
    });
    assert_eq!(get(&router, "/api/v1/jobs").await.status, StatusCode::UNAUTHORIZED);
    assert_eq!(get_with(&router, "/api/v1/jobs", "wrong").await.status, StatusCode::UNAUTHORIZED);
    assert_eq!(get_with(&router, "/api/v1/jobs", "reader").await.status, StatusCode::OK);
    assert_eq!(get_with(&router, "/api/v1/jobs", ADMIN).await.status, StatusCode::OK);
    assert_eq!(get(&router, "/metrics").await.status, StatusCode::UNAUTHORIZED);
    assert_eq!(get_with(&router, "/metrics", "reader").await.status, StatusCode::OK);

    let page = get(&router, "/").await;
    assert_eq!(page.status, StatusCode::UNAUTHORIZED);
    assert!(page.text.contains("A token is needed"), "{}", page.text);
    assert_eq!(get_with(&router, "/", "reader").await.status, StatusCode::OK);

    assert_eq!(get(&router, "/healthz").await.status, StatusCode::OK);
    assert_eq!(get(&router, "/readyz").await.status, StatusCode::OK);
    assert_eq!(get(&router, "/assets/dashboard.js").await.status, StatusCode::OK);
}
