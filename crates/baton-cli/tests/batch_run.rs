//! `baton batch run JOB`: a running agent starts a batch of its partitioned job, which then
//! completes; bad input is refused on one line before anything is sent.

use std::process::Output;
use std::time::Duration;

use baton::core::cluster::BatchState;

mod common;

use common::agent::{Site, eventually, http};
use common::{stderr, stdout};

const CONFIG: &str = "node_id = \"batch-node\"\n[http]\nadmin_token = \"s3cret\"\n\
                      [[batch]]\nname = \"split\"\ncommand = [\"true\"]\npartitions = 3\n";

fn batch_run(site: &Site, args: &[&str], token: Option<&str>) -> Output {
    let mut command = site.baton(&[&["batch", "run"], args].concat());
    if let Some(token) = token {
        command.env("BATON_ADMIN_TOKEN", token);
    }
    command.output().unwrap()
}

fn assert_one_line_refusal(out: &Output, code: i32, needle: &str) {
    assert_eq!(out.status.code(), Some(code), "{}", stderr(out));
    assert_eq!(stdout(out), "");
    let err = stderr(out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(needle), "{needle:?} missing from {err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_agent_starts_a_batch_that_completes() {
    let site = Site::new();
    site.write("baton.toml", &format!("backend = \"{}\"\n{CONFIG}", site.url));
    let agent = site.start("baton.toml");
    let address = agent.http_address().await;
    eventually("the agent to be ready", Duration::from_secs(20), async || {
        (http(&address, "GET", "/readyz", None).0 == 200).then_some(())
    })
    .await;
    let url = format!("http://{address}");

    let out = batch_run(&site, &["split", "--agent", &url], Some("s3cret"));
    assert!(out.status.success(), "{}", stderr(&out));
    let printed = stdout(&out);
    let id: i64 = printed
        .strip_prefix("started batch ")
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("no batch id in {printed:?}"));
    assert!(printed.contains(&format!("baton batch status {id}")), "{printed}");

    let backend = site.backend().await;
    let batch = eventually("the batch to finish", Duration::from_secs(30), async || {
        let batch = backend.cluster().batch_get(id).await.unwrap()?;
        (batch.state != BatchState::Running).then_some(batch)
    })
    .await;
    assert_eq!(batch.state, BatchState::Succeeded, "{batch:?}");
    assert_eq!(batch.name.as_str(), "split");
    let (status, actions) = http(&address, "GET", "/api/v1/actions", None);
    assert_eq!(status, 200, "{actions}");
    assert!(actions.contains("batch.start"), "the start is recorded: {actions}");

    let unknown = batch_run(&site, &["nightly", "--agent", &url], Some("s3cret"));
    assert_one_line_refusal(&unknown, 1, "404");
    let wrong_token = batch_run(&site, &["split", "--agent", &url], Some("guess"));
    assert_one_line_refusal(&wrong_token, 1, "401");
}

#[test]
fn bad_input_is_refused_on_one_line_and_sends_nothing() {
    let site = Site::new();
    let bad_url = batch_run(&site, &["split", "--agent", "localhost:8080"], Some("s3cret"));
    assert_one_line_refusal(&bad_url, 2, "invalid agent URL \"localhost:8080\"");
    let no_token = batch_run(&site, &["split", "--agent", "http://127.0.0.1:9"], None);
    assert_one_line_refusal(&no_token, 2, "BATON_ADMIN_TOKEN is not set");
    let bad_job = batch_run(&site, &["no such job", "--agent", "http://127.0.0.1:9"], Some("t"));
    assert_one_line_refusal(&bad_job, 2, "no such job");
}
