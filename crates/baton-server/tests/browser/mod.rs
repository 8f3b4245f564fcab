//! A served dashboard and headless Chromium to look at it: the DOM of a page after its
//! scripts ran, and a page of the test's own that drives the dashboard in a second window as
//! a person would (typing the token, pressing the admin buttons).

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;

use axum::response::Html;
use axum::routing::get;
use baton_server::ServerConfig;
use tokio::net::TcpListener;
use tokio::process::Command;

use crate::common::Fixture;

/// The admin token the served dashboard accepts.
pub const ADMIN: &str = "admin-secret";
/// The page of the test's own that drives the dashboard, served at `/harness`.
const HARNESS: &str = include_str!("harness.html");

/// Serves the router, and the harness at `/harness`, on a free loopback port until the test
/// ends; answers its address.
pub async fn serve(fixture: &Fixture) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let address = listener.local_addr().unwrap();
    let config = ServerConfig { admin_token: Some(ADMIN.into()), read_token: None };
    let app = baton_server::router(fixture.backend.clone(), fixture.node.clone(), config)
        .route("/harness", get(|| async { Html(HARNESS) }));
    tokio::spawn(baton_server::serve(listener, app, std::future::pending()));
    address
}

/// The DOM of `url` after its scripts ran for `budget` of virtual time, as headless
/// Chromium dumps it.
pub async fn dom(url: &str, budget: Duration) -> String {
    let Ok(chromium) = which("chromium") else {
        panic!("install chromium (apt-get install chromium) to run the dashboard browser test");
    };
    let profile = tempfile::tempdir().expect("a profile directory");
    let run = Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-popup-blocking"])
        .args(["--dump-dom", &format!("--virtual-time-budget={}", budget.as_millis())])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(url)
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(120), run)
        .await
        .expect("chromium finished within 2 minutes")
        .expect("chromium ran");
    assert!(
        output.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("the DOM is UTF-8")
}

/// The path of an executable on `PATH`.
fn which(name: &str) -> Result<std::path::PathBuf, ()> {
    let path = std::env::var_os("PATH").ok_or(())?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|file| file.is_file()).ok_or(())
}
