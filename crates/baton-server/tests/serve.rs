//! The server over a real loopback connection: oversized request heads are answered in JSON
//! like every other error, and admin actions are logged with the caller's address.

mod common;

use baton_server::{MAX_HEADER_BYTES, MAX_HEADER_FIELDS, MAX_URI_BYTES, ServerConfig};
use common::Fixture;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const ADMIN: &str = "admin-secret";

/// Serves the fixture's router on a free loopback port until the test ends.
async fn served(fixture: &Fixture) -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let address = listener.local_addr().unwrap();
    let config = ServerConfig { admin_token: Some(ADMIN.into()), read_token: None };
    let router = baton_server::router(fixture.backend.clone(), fixture.node.clone(), config);
    tokio::spawn(baton_server::serve(listener, router, std::future::pending()));
    address
}

/// Sends `head` (request line and header fields, without the blank line) and answers the
/// status and the body of the response.
async fn exchange(address: std::net::SocketAddr, head: &str) -> (u16, serde_json::Value) {
    let mut stream = TcpStream::connect(address).await.expect("connect");
    let request = format!("{head}\r\nconnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("send the request");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.expect("read the response");
    let response = String::from_utf8(response).expect("a UTF-8 response");
    let status = response[9..12].parse().expect("a status code");
    let (_, body) = response.split_once("\r\n\r\n").expect("a head and a body");
    let body = serde_json::from_str(body).unwrap_or_else(|err| panic!("{err}: {response}"));
    (status, body)
}

#[tokio::test]
async fn an_oversized_uri_is_answered_414_in_json() {
    let fixture = Fixture::new().await;
    let address = served(&fixture).await;
    let long = "x".repeat(MAX_URI_BYTES);
    let (status, body) = exchange(address, &format!("GET /api/v1/jobs?job={long} HTTP/1.1")).await;
    assert_eq!(status, 414, "{body}");
    assert_eq!(body["error"]["code"], "uri_too_long");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains(&MAX_URI_BYTES.to_string()), "{message}");

    let fits = exchange(address, "GET /api/v1/jobs?job=nightly HTTP/1.1").await;
    assert_eq!(fits.0, 200, "{}", fits.1);
}

#[tokio::test]
async fn too_many_or_too_large_header_fields_are_answered_431_in_json() {
    let fixture = Fixture::new().await;
    let address = served(&fixture).await;
    let many: String = (0..=MAX_HEADER_FIELDS).map(|i| format!("\r\nx-field-{i}: {i}")).collect();
    let (status, body) = exchange(address, &format!("GET /api/v1/jobs HTTP/1.1{many}")).await;
    assert_eq!(status, 431, "{body}");
    assert_eq!(body["error"]["code"], "headers_too_large");

    let large = "v".repeat(MAX_HEADER_BYTES);
    let (status, body) =
        exchange(address, &format!("GET /api/v1/jobs HTTP/1.1\r\nx-large: {large}")).await;
    assert_eq!(status, 431, "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains(&MAX_HEADER_BYTES.to_string()), "{message}");
}

#[tokio::test]
async fn admin_actions_are_logged_with_the_callers_address() {
    let fixture = Fixture::new().await;
    fixture.lease_held("scheduler", "holder-1").await;
    let address = served(&fixture).await;
    let head = format!(
        "POST /api/v1/leases/scheduler/force-release HTTP/1.1\r\nauthorization: Bearer {ADMIN}\r\ncontent-length: 0"
    );
    let (status, body) = exchange(address, &head).await;
    assert_eq!(status, 200, "{body}");
    let (_, actions) = exchange(address, "GET /api/v1/actions HTTP/1.1").await;
    let action = &actions["items"][0];
    assert_eq!(action["action"], "lease.force_release", "{actions}");
    let detail = action["detail"].as_str().expect("a detail");
    assert!(detail.contains("127.0.0.1:"), "the caller's address is logged: {detail}");
}
