//! Coordination between real processes sharing one database file.
//!
//! The parent tests re-run this test binary as child processes that play the `child_role`
//! test, selected and configured through environment variables; run normally, that test does
//! nothing.

mod common;

use std::process::Stdio;
use std::time::Duration;

use baton_core::job::{NewFire, RecordFiresParams};
use baton_core::{
    AcquireOutcome, AcquireParams, FencingToken, HistoryParams, HolderId, LeaseName, LeaseStore,
    ReleaseParams,
};
use baton_core::{JobDefinition, JobName, JobPolicy, JobStore, Schedule, StoreTime};
use baton_sqlite::SqliteBackend;
use tokio::io::{AsyncBufReadExt, BufReader};

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
        "hog" => hog(backend.jobs(), holder).await,
        other => panic!("unknown role {other}"),
    }
}

/// Writers in one hogging process, so that its write connection is never idle.
const HOG_WRITERS: usize = 3;
/// Fires each hogging writer records in one transaction, so that it holds the write lock a while.
const HOG_FIRES: i64 = 2000;

/// Records fires of a job of its own in [`HOG_WRITERS`] loops without a pause, printing
/// `HOGGING` once every loop has committed; runs until killed.
async fn hog(store: baton_sqlite::SqliteJobStore, holder: HolderId) {
    let mut writers = tokio::task::JoinSet::new();
    let (started, mut starting) = tokio::sync::mpsc::channel(HOG_WRITERS);
    for writer in 0..HOG_WRITERS {
        let (store, started) = (store.clone(), started.clone());
        let job = JobName::new(format!("{holder}-{writer}")).unwrap();
        writers.spawn(async move {
            let schedule = Schedule::every(Duration::from_secs(1)).unwrap();
            let definition =
                JobDefinition { name: job.clone(), schedule, policy: JobPolicy::default() };
            store.job_upsert(definition).await.unwrap();
            // Far in the future: nothing becomes due.
            let mut at = store.now().await.unwrap().as_millis() + 86_400_000;
            let mut first = Some(started);
            loop {
                let fires = (0..HOG_FIRES)
                    .map(|step| {
                        let instant = StoreTime::from_millis(at + step);
                        NewFire { job: job.clone(), scheduled_at: instant, due_at: instant }
                    })
                    .collect();
                at += HOG_FIRES;
                store.record_fires(RecordFiresParams { fires, missed: vec![] }).await.unwrap();
                if let Some(started) = first.take() {
                    started.send(()).await.unwrap();
                }
            }
        });
    }
    for _ in 0..HOG_WRITERS {
        starting.recv().await.unwrap();
    }
    println!("HOGGING");
    writers.join_next().await.expect("a writer").expect("writers run until killed");
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_writing_back_to_back_do_not_starve_a_third() {
    let db = common::TempDb::new();
    let store = db.open().await.leases();
    let mut hogs = Vec::new();
    for index in 0..2 {
        let mut command = tokio::process::Command::new(std::env::current_exe().unwrap());
        command
            .args(["child_role", "--exact", "--nocapture", "--test-threads=1"])
            .env(ROLE, "hog")
            .env(URL, db.url())
            .env(LEASE, "unused")
            .env(HOLDER, format!("hog-{index}"))
            .stdout(Stdio::piped())
            .kill_on_drop(true);
        let mut hog = command.spawn().expect("start a hogging process");
        let mut lines = BufReader::new(hog.stdout.take().unwrap()).lines();
        while let Some(line) = lines.next_line().await.unwrap() {
            if line.contains("HOGGING") {
                break;
            }
        }
        assert!(hog.try_wait().unwrap().is_none(), "hog {index} exited before hogging");
        hogs.push(hog);
    }

    let name = LeaseName::new("third").unwrap();
    let params = AcquireParams { name, holder: HolderId::new("third").unwrap(), ttl: TTL };
    let granted = store.acquire(params).await;
    for hog in &mut hogs {
        assert!(hog.try_wait().unwrap().is_none(), "a hog exited while the third waited");
        hog.kill().await.unwrap();
    }
    assert!(
        matches!(granted, Ok(AcquireOutcome::Acquired { .. })),
        "the third process was kept out while two others wrote back to back: {granted:?}"
    );
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
