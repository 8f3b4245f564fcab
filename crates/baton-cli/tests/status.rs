//! `baton status` over a SQLite store with a leader, nodes, jobs, failures and a running
//! batch: each section shows them.

mod common;
mod seed;

use baton::core::ExecutionStatus;
use common::*;
use serde_json::Value;

/// The lines of `section` (indented under its title), up to the next title.
fn section<'a>(screen: &'a str, title: &str) -> Vec<&'a str> {
    let mut lines = screen.lines().skip_while(|line| !line.starts_with(title)).skip(1);
    std::iter::from_fn(|| lines.next().filter(|line| line.starts_with("  "))).collect()
}

#[tokio::test]
async fn status_shows_leaders_nodes_next_fires_failures_and_running_batches() {
    let store = store();
    let backend = baton::connect(&store.url).await.unwrap();
    backend.migrate().await.unwrap();
    seed::leader(&backend, "baton-scheduler", "node-a").await;
    let node = seed::node(&backend, "node-a").await;
    seed::node(&backend, "node-b").await;
    seed::job(&backend, "nightly").await;
    let failed = seed::execution(&backend, "nightly", "k1", ExecutionStatus::Failed, None).await;
    let timed_out =
        seed::execution(&backend, "nightly", "k2", ExecutionStatus::TimedOut, None).await;
    seed::execution(&backend, "nightly", "k3", ExecutionStatus::Succeeded, None).await;
    let batch = seed::batch(&backend, "reindex", &node).await;

    let out = store.run(&["status"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let screen = stdout(&out);
    let leaders = section(&screen, "LEADERS");
    assert!(
        leaders.iter().any(|l| l.contains("baton-scheduler") && l.contains("node-a")),
        "{screen}"
    );
    let nodes = section(&screen, "NODES");
    assert!(nodes.iter().any(|l| l.contains("node-a") && l.contains("active")), "{screen}");
    assert!(nodes.iter().any(|l| l.contains("node-b")), "{screen}");
    let fires = section(&screen, "NEXT FIRES");
    assert_eq!(fires, ["  2099-01-01T00:00:00.000Z   nightly"], "{screen}");
    let failures = section(&screen, "RECENT FAILURES");
    assert_eq!(failures.len(), 3, "a header and two failures, newest first: {screen}");
    assert!(failures[1].trim_start().starts_with(&timed_out.id.to_string()), "{screen}");
    assert!(failures[2].trim_start().starts_with(&failed.id.to_string()), "{screen}");
    let batches = section(&screen, "RUNNING BATCHES");
    let expected = format!(
        "  batch {} of reindex: 3 partitions: 2 pending, 0 claimed, 1 completed, 0 failed",
        batch.id
    );
    assert_eq!(batches, [expected.as_str()], "{screen}");

    let json: Value =
        serde_json::from_str(&stdout(&store.run(&["--output", "json", "status"]))).unwrap();
    assert_eq!(json["leaders"][0]["holder"], "node-a");
    assert_eq!(json["nodes"]["items"].as_array().unwrap().len(), 2);
    assert_eq!(json["next_fires"][0]["job"], "nightly");
    assert_eq!(json["failures"][0]["status"], "timed_out");
    assert_eq!(json["batches"][0]["batch"]["id"], batch.id);
}

#[test]
fn an_empty_store_shows_none_in_each_section() {
    let store = store();
    let out = store.run(&["status"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let screen = stdout(&out);
    for title in ["LEADERS", "NODES", "NEXT FIRES", "RECENT FAILURES", "RUNNING BATCHES"] {
        assert_eq!(section(&screen, title), ["  none"], "{title}: {screen}");
    }
}
