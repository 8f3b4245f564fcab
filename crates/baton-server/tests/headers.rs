//! Response headers: the 401 challenge, the bearer scheme in any case, and the dashboard's
//! security headers.

mod common;

use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use baton::core::Schedule;
use baton_server::ServerConfig;
use common::{Fixture, far_future};
use tower::ServiceExt;

const ADMIN: &str = "admin-secret";

/// The status and headers of the router's answer to `request`.
async fn head(router: &axum::Router, request: Request<Body>) -> (StatusCode, HeaderMap) {
    let response = router.clone().oneshot(request).await.expect("the router answers");
    (response.status(), response.headers().clone())
}

fn pause(authorization: Option<&str>) -> Request<Body> {
    let mut request = Request::post("/api/v1/jobs/nightly/pause");
    if let Some(value) = authorization {
        request = request.header("authorization", value);
    }
    request.body(Body::empty()).unwrap()
}

#[tokio::test]
async fn a_401_challenges_for_a_bearer_token_and_the_scheme_is_case_insensitive() {
    let fixture = Fixture::new().await;
    fixture.job("nightly", Schedule::once(far_future())).await;
    let router = fixture.admin_router(ADMIN);
    for refused in [None, Some("Bearer wrong"), Some("Basic YWRtaW4=")] {
        let (status, headers) = head(&router, pause(refused)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{refused:?}");
        assert_eq!(headers["www-authenticate"], "Bearer realm=\"baton\"", "{refused:?}");
    }
    for scheme in ["bearer", "BEARER", "Bearer"] {
        let (status, _) = head(&router, pause(Some(&format!("{scheme} {ADMIN}")))).await;
        assert_eq!(status, StatusCode::OK, "scheme {scheme}");
    }
    let reader = fixture.router(ServerConfig { admin_token: None, read_token: Some("r".into()) });
    let (status, headers) = head(&reader, Request::get("/").body(Body::empty()).unwrap()).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(headers["www-authenticate"], "Bearer realm=\"baton\"", "the dashboard's 401 too");
}

#[tokio::test]
async fn dashboard_responses_forbid_sniffing_framing_and_foreign_content() {
    let fixture = Fixture::new().await;
    let router = fixture.router(ServerConfig::default());
    for path in ["/", "/executions", "/assets/dashboard.js", "/leases/absent"] {
        let (_, headers) = head(&router, Request::get(path).body(Body::empty()).unwrap()).await;
        assert_eq!(headers["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(headers["x-frame-options"], "DENY", "{path}");
        let policy = headers["content-security-policy"].to_str().unwrap();
        assert!(policy.starts_with("default-src 'self'"), "{path}: {policy}");
        assert!(policy.contains("frame-ancestors 'none'"), "{path}: {policy}");
    }
}
