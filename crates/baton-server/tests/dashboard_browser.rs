//! The dashboard in a real headless browser: what a person sees on the overview, a batch
//! page and an execution page, served over a SQLite store with nodes, jobs, executions and a
//! batch.

mod common;

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;

use baton::core::{ExecutionStatus, Schedule};
use baton_server::ServerConfig;
use common::{Fixture, far_future};
use tokio::net::TcpListener;
use tokio::process::Command;

/// Serves the router on a free loopback port until the test ends; answers its address.
async fn serve(fixture: &Fixture) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
    let address = listener.local_addr().unwrap();
    let config = ServerConfig { admin_token: Some("admin-secret".into()), read_token: None };
    let app = baton_server::router(fixture.backend.clone(), fixture.node.clone(), config)
        .into_make_service_with_connect_info::<SocketAddr>();
    tokio::spawn(async move { axum::serve(listener, app).await });
    address
}

/// The DOM of `url` after its scripts ran, as headless Chromium dumps it.
async fn dom(url: &str) -> String {
    let Ok(chromium) = which("chromium") else {
        panic!("install chromium (apt-get install chromium) to run the dashboard browser test");
    };
    let profile = tempfile::tempdir().expect("a profile directory");
    let run = Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"])
        .arg("--virtual-time-budget=5000")
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

#[tokio::test]
async fn a_person_sees_nodes_jobs_progress_and_output() {
    let fixture = Fixture::new().await;
    let worker = fixture.node_registered("worker-east-1").await;
    fixture.node_registered("worker-west-2").await;
    fixture.job("nightly-report", Schedule::once(far_future())).await;
    fixture.job("cache-warmer", Schedule::every(Duration::from_secs(3600)).unwrap()).await;
    let execution = fixture
        .execution(
            "nightly-report",
            "run-1",
            ExecutionStatus::Succeeded,
            Some("42 rows exported\nreport done"),
        )
        .await;
    fixture.lease_held("scheduler", "worker-east-1").await;
    let batch = fixture.batch("etl-import", &worker).await;
    let address = serve(&fixture).await;

    let overview = dom(&format!("http://{address}/")).await;
    for seen in [
        "worker-east-1",
        "worker-west-2",
        "nightly-report",
        "cache-warmer",
        "scheduler",
        "etl-import",
    ] {
        assert!(overview.contains(seen), "the overview shows {seen}:\n{overview}");
    }
    assert!(overview.contains("2099-01-01 00:00:00 UTC"), "the next fire of nightly-report");
    assert!(overview.contains("class=\"status succeeded\""), "the last outcome");

    let batch_page = dom(&format!("http://{address}/batches/{}", batch.id)).await;
    assert!(
        batch_page.contains(r#"<progress data-partition="p1" value="400" max="1000">"#),
        "the progress bar of p1:\n{batch_page}"
    );
    assert!(batch_page.contains(r#"<progress data-partition="p0" value="1000" max="1000">"#));
    assert!(batch_page.contains("1 of 3 partitions final"), "{batch_page}");

    let execution_page = dom(&format!("http://{address}/executions/{}", execution.id)).await;
    assert!(
        execution_page.contains("42 rows exported\nreport done"),
        "the output of the execution:\n{execution_page}"
    );
}
