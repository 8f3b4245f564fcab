//! Coordination between real processes sharing one database file.
//!
//! The parent tests re-run this test binary as child processes that play the `child_role`
//! test, selected and configured through environment variables; run normally, that test does
//! nothing.

mod common;

use std::process::Stdio;
use std::time::Duration;

use baton_core::{
    AcquireOutcome, AcquireParams, FencingToken, HistoryParams, HolderId, LeaseName, LeaseStore,
    ReleaseParams,
};
use baton_sqlite::SqliteBackend;

const ROLE: &str = "BATON_SQLITE_TEST_ROLE";
const URL: &str = "BATON_SQLITE_TEST_URL";
const LEASE: &str = "BATON_SQLITE_TEST_LEASE";
const HOLDER: &str = "BATON_SQLITE_TEST_HOLDER";
const TOKEN: &str = "BATON_SQLITE_TEST_TOKEN";
const TTL: Duration = Duration::from_secs(30);

fn env(key: &str) -> String {
    std::env::var(key).unwrap_or_else(|_| panic!("{key} is not set"))
}

/// The child side: does one thing to the database named in the environment and prints the
/// outcome after the marker `OUTCOME `.
#[tokio::test]
async fn child_role() {
    let Ok(role) = std::env::var(ROLE) else { return };
    let backend = SqliteBackend::connect(&env(URL)).await.expect("open the database");
    backend.migrate().await.expect("migrate");
    let store = backend.leases();
    let name = LeaseName::new(env(LEASE)).unwrap();
    let holder = HolderId::new(env(HOLDER)).unwrap();
    match role.as_str() {
        "release" => {
            let token: FencingToken = env(TOKEN).parse().unwrap();
            let released = store.release(ReleaseParams { name, holder, token }).await.unwrap();
            println!("OUTCOME released={released}");
        }
        "contend" => {
            let outcome = store.acquire(AcquireParams { name, holder, ttl: TTL }).await.unwrap();
            let granted = matches!(outcome, AcquireOutcome::Acquired { .. });
            println!("OUTCOME granted={granted}");
        }
        other => panic!("unknown role {other}"),
    }
}

/// Runs `child_role` in a new process and returns its `OUTCOME` line.
async fn run_child(role: &str, url: &str, lease: &str, holder: &str, token: Option<u64>) -> String {
    let mut command = tokio::process::Command::new(std::env::current_exe().unwrap());
    command
        .args(["child_role", "--exact", "--nocapture", "--test-threads=1"])
        .env(ROLE, role)
        .env(URL, url)
        .env(LEASE, lease)
        .env(HOLDER, holder)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(token) = token {
        command.env(TOKEN, token.to_string());
    }
    let output = command.output().await.expect("run the child process");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "child {role} failed: {}\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
        .lines()
        .find_map(|line| line.split_once("OUTCOME ").map(|(_, outcome)| outcome.trim().to_string()))
        .unwrap_or_else(|| panic!("child {role} printed no outcome line:\n{stdout}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_release_in_another_process_wakes_a_subscriber_here() {
    let db = common::TempDb::new();
    let backend = db.open().await;
    let store = backend.leases();
    let mut changes = store.subscribe().await.unwrap().expect("a feed");
    let (name, holder) = (LeaseName::new("handover").unwrap(), HolderId::new("parent").unwrap());
    let params = AcquireParams { name: name.clone(), holder: holder.clone(), ttl: TTL };
    let AcquireOutcome::Acquired { lease, .. } = store.acquire(params).await.unwrap() else {
        panic!("the lease was free");
    };

    let child =
        run_child("release", &db.url(), "handover", "parent", Some(lease.token.get())).await;
    assert_eq!(child, "released=true");
    let woken = tokio::time::timeout(Duration::from_secs(10), changes.next())
        .await
        .expect("no notification within 10 s of the child's release")
        .expect("feed");
    assert_eq!(woken, name);
    assert_eq!(store.get(&name).await.unwrap().unwrap().holder, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn contenders_in_separate_processes_get_exactly_one_grant() {
    // The children create the file, switch it to WAL and migrate it concurrently too.
    let db = common::TempDb::new();
    let url = db.url();
    let children = (0..6).map(|i| {
        let url = url.clone();
        async move { run_child("contend", &url, "singleton", &format!("child-{i}"), None).await }
    });
    let outcomes = futures_join_all(children).await;
    let grants = outcomes.iter().filter(|outcome| *outcome == "granted=true").count();
    assert_eq!(grants, 1, "exactly one process must win: {outcomes:?}");

    let store = db.open().await.leases();
    let lease = Some(LeaseName::new("singleton").unwrap());
    let page = store.history(HistoryParams { lease, ..Default::default() }).await.unwrap();
    assert_eq!(page.items.len(), 1, "exactly one leader change recorded");
}

/// Waits for every future, running them concurrently on the runtime.
async fn futures_join_all<F>(futures: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut outputs = Vec::new();
    for handle in handles {
        outputs.push(handle.await.expect("child task"));
    }
    outputs
}
