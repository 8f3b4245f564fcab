//! Release notifications between independently opened backends on one file.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use baton_core::{
    AcquireOutcome, AcquireParams, ForceReleaseParams, HolderId, Lease, LeaseChanges, LeaseName,
    LeaseStore, ReleaseParams,
};

const TTL: Duration = Duration::from_secs(30);

async fn grant(store: &dyn LeaseStore, name: &str, holder: &str) -> Lease {
    let params = AcquireParams {
        name: LeaseName::new(name).unwrap(),
        holder: HolderId::new(holder).unwrap(),
        ttl: TTL,
    };
    match store.acquire(params).await.unwrap() {
        AcquireOutcome::Acquired { lease, .. } => lease,
        other => panic!("expected a grant, got {other:?}"),
    }
}

async fn release(store: &dyn LeaseStore, lease: &Lease) {
    let params = ReleaseParams {
        name: lease.name.clone(),
        holder: lease.holder.clone().unwrap(),
        token: lease.token,
    };
    assert!(store.release(params).await.unwrap());
}

async fn next_change(changes: &mut Box<dyn LeaseChanges>) -> LeaseName {
    tokio::time::timeout(Duration::from_secs(10), changes.next())
        .await
        .expect("no notification within 10 s")
        .expect("feed")
}

fn notify_dir(database: &Path) -> PathBuf {
    let mut dir = database.as_os_str().to_owned();
    dir.push(".notify");
    PathBuf::from(dir)
}

fn sockets(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|entry| entry.path()).collect())
        .unwrap_or_default();
    found.sort();
    found
}

#[tokio::test]
async fn a_release_through_another_backend_wakes_a_subscriber() {
    let db = common::TempDb::new();
    let (waiter, releaser) = (db.open().await, db.open().await);
    let mut changes = waiter.leases().subscribe().await.unwrap().expect("a feed");
    let other = releaser.leases();

    let lease = grant(&other, "graceful", "holder-b").await;
    release(&other, &lease).await;
    assert_eq!(next_change(&mut changes).await.as_str(), "graceful");

    grant(&other, "forced", "holder-b").await;
    let name = LeaseName::new("forced").unwrap();
    assert!(other.force_release(ForceReleaseParams { name }).await.unwrap().is_some());
    assert_eq!(next_change(&mut changes).await.as_str(), "forced");
}

#[tokio::test]
async fn dropping_a_subscription_removes_its_socket() {
    let db = common::TempDb::new();
    let backend = db.open().await;
    let dir = notify_dir(backend.path());
    let changes = backend.leases().subscribe().await.unwrap().expect("a feed");
    assert_eq!(sockets(&dir).len(), 1);
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0, "the notification directory is private: {mode:o}");
    drop(changes);
    assert!(sockets(&dir).is_empty());
}

#[tokio::test]
async fn sockets_left_by_dead_subscribers_are_removed_on_release() {
    let db = common::TempDb::new();
    let backend = db.open().await;
    let store = backend.leases();
    let mut changes = store.subscribe().await.unwrap().expect("a feed");
    let dir = notify_dir(backend.path());
    let dead = dir.join("dead.sock");
    drop(std::os::unix::net::UnixDatagram::bind(&dead).unwrap());
    assert!(dead.exists(), "the socket file outlives its socket");

    let lease = grant(&store, "cleanup", "holder-a").await;
    release(&store, &lease).await;
    assert_eq!(next_change(&mut changes).await.as_str(), "cleanup");
    assert!(!dead.exists(), "the stale socket file was removed");
    assert_eq!(sockets(&dir).len(), 1, "the live subscription stays");
}

#[tokio::test]
async fn a_stale_release_notifies_nobody() {
    let db = common::TempDb::new();
    let backend = db.open().await;
    let store = backend.leases();
    let mut changes = store.subscribe().await.unwrap().expect("a feed");
    let lease = grant(&store, "once", "holder-a").await;
    release(&store, &lease).await;
    assert_eq!(next_change(&mut changes).await.as_str(), "once");
    let params = ReleaseParams {
        name: lease.name.clone(),
        holder: lease.holder.clone().unwrap(),
        token: lease.token,
    };
    assert!(!store.release(params).await.unwrap());
    let marker = grant(&store, "marker", "holder-a").await;
    release(&store, &marker).await;
    let next = next_change(&mut changes).await;
    assert_eq!(next.as_str(), "marker", "a release that changed nothing must not notify");
}

#[tokio::test]
async fn a_database_deep_in_the_filesystem_still_notifies() {
    let db = common::TempDb::new();
    let deep = db.path().with_file_name("d".repeat(60)).join("e".repeat(60));
    std::fs::create_dir_all(&deep).unwrap();
    let url = format!("sqlite://{}", deep.join("baton.db").display());
    assert!(url.len() > 130, "the socket paths must not fit in a socket address");
    let open = || async {
        let backend = baton_sqlite::SqliteBackend::connect(&url).await.unwrap();
        backend.migrate().await.unwrap();
        backend
    };
    let (waiter, releaser) = (open().await, open().await);
    let mut changes = waiter.leases().subscribe().await.unwrap().expect("a feed");
    let dir = notify_dir(waiter.path());
    assert_eq!(sockets(&dir).len(), 1);

    let other = releaser.leases();
    let lease = grant(&other, "deep", "holder-b").await;
    release(&other, &lease).await;
    assert_eq!(next_change(&mut changes).await.as_str(), "deep");
    drop(changes);
    assert!(sockets(&dir).is_empty());
}
