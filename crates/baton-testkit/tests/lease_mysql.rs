//! The lease conformance suite against a throwaway MariaDB server, plus token durability across
//! deletion of the lease row and a crash of the server, doorbell wake-ups and bad input.

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use baton_core::{
    AcquireOutcome, AcquireParams, ChangeReason, ErrorKind, HolderId, Lease, LeaseName, LeaseStore,
    ReleaseParams,
};
use baton_mysql::MysqlBackend;
use baton_testkit::conformance::lease::LeaseHarness;
use baton_testkit::conformance::{unique_holder, unique_name};
use baton_testkit::servers::MariadbServer;
use sqlx::{Connection, MySqlConnection};
use tokio::sync::OnceCell;

/// One server per test case, as for PostgreSQL; the backend is connected and migrated on first
/// use. Fields drop in order: the connections first, then the server.
struct Mariadb {
    backend: OnceCell<MysqlBackend>,
    server: MariadbServer,
}

impl Mariadb {
    fn start() -> Self {
        Mariadb { backend: OnceCell::new(), server: MariadbServer::start() }
    }

    async fn backend(&self) -> &MysqlBackend {
        self.backend.get_or_init(|| connect(&self.server)).await
    }
}

async fn connect(server: &MariadbServer) -> MysqlBackend {
    let backend = MysqlBackend::connect(&server.url()).await.expect("connect");
    backend.migrate().await.expect("migrate");
    backend
}

#[async_trait]
impl LeaseHarness for Mariadb {
    async fn store(&self) -> Arc<dyn LeaseStore> {
        Arc::new(self.backend().await.leases())
    }

    async fn delete_record(&self, name: &LeaseName) {
        let mut conn = MySqlConnection::connect(&self.server.url()).await.expect("connect");
        sqlx::query("DELETE FROM baton_leases WHERE name = ?")
            .bind(name.as_str())
            .execute(&mut conn)
            .await
            .expect("delete the lease row");
        conn.close().await.expect("close");
    }
}

baton_testkit::lease_conformance!(Mariadb::start());

fn params(name: &LeaseName, holder: &HolderId, ttl: Duration) -> AcquireParams {
    AcquireParams { name: name.clone(), holder: holder.clone(), ttl }
}

async fn acquire_until_granted(
    store: &dyn LeaseStore,
    name: &LeaseName,
    holder: &HolderId,
) -> (Lease, ChangeReason) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let outcome = store.acquire(params(name, holder, Duration::from_secs(30))).await.unwrap();
        if let AcquireOutcome::Acquired { lease, reason } = outcome {
            return (lease, reason);
        }
        assert!(tokio::time::Instant::now() < deadline, "lease {name} never became free");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_keep_rising_after_the_lease_row_is_deleted() {
    let harness = Mariadb::start();
    let store = harness.store().await;
    let name = unique_name("deleted");
    let (first, _) = acquire_until_granted(&*store, &name, &unique_holder("a")).await;
    harness.delete_record(&name).await;
    let (second, reason) = acquire_until_granted(&*store, &name, &unique_holder("b")).await;
    assert_eq!(reason, ChangeReason::Fresh, "the row was gone");
    assert!(second.token > first.token, "token {} reissued after {}", second.token, first.token);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_token_is_reissued_after_the_server_is_killed_and_restarted() {
    // A server of its own: this case kills it.
    let server = MariadbServer::start();
    let (name, other) = (unique_name("crash"), unique_name("crash-other"));
    let backend = connect(&server).await;
    let store = backend.leases();
    let granted =
        store.acquire(params(&name, &unique_holder("before"), Duration::from_millis(300)));
    let before = match granted.await.unwrap() {
        AcquireOutcome::Acquired { lease, .. } => lease.token,
        other => panic!("expected a grant, got {other:?}"),
    };
    backend.close().await;
    drop(store);

    server.process().kill();
    assert!(!server.process().is_running());
    server.process().restart();

    let backend = connect(&server).await;
    let store = backend.leases();
    let (fresh, reason) = acquire_until_granted(&store, &other, &unique_holder("after")).await;
    assert_eq!(reason, ChangeReason::Fresh);
    assert!(fresh.token.get() >= 1);
    let (taken, reason) = acquire_until_granted(&store, &name, &unique_holder("after")).await;
    assert_eq!(reason, ChangeReason::ExpiredTakeover);
    assert!(taken.token > before, "token {} reissued after {before}", taken.token);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiter_in_another_backend_learns_of_a_release_from_the_doorbell() {
    let server = MariadbServer::start();
    let (holding, waiting) = (connect(&server).await, connect(&server).await);
    let (holder_store, waiter_store) = (holding.leases(), waiting.leases());
    let mut changes = waiter_store.subscribe().await.unwrap().expect("MySQL notifies");
    let name = unique_name("bell");
    let (lease, _) = acquire_until_granted(&holder_store, &name, &unique_holder("a")).await;
    let refused = waiter_store.acquire(params(&name, &unique_holder("b"), Duration::from_secs(30)));
    assert!(matches!(refused.await.unwrap(), AcquireOutcome::Held(_)));
    // The watch blocks on the holder's doorbell: nothing is reported while the lease is held.
    let early = tokio::time::timeout(Duration::from_millis(300), changes.next()).await;
    assert!(early.is_err(), "a held lease must not be reported released: {early:?}");
    let released_at = Instant::now();
    let release = ReleaseParams {
        name: name.clone(),
        holder: lease.holder.clone().unwrap(),
        token: lease.token,
    };
    assert!(holder_store.release(release).await.unwrap());
    let woken = tokio::time::timeout(Duration::from_secs(10), changes.next())
        .await
        .expect("a wake-up within 10 s")
        .unwrap();
    assert_eq!(woken, name);
    // Far below the 30 s TTL the watch would otherwise wait out.
    assert!(released_at.elapsed() < Duration::from_secs(5), "{:?}", released_at.elapsed());
}

#[tokio::test]
async fn bad_urls_and_credentials_fail_in_one_line_naming_the_problem() {
    let server = MariadbServer::start();
    let port = server.port();
    let cases = [
        (format!("mysql://root@127.0.0.1:{port}"), "names no database"),
        (format!("mysql://root@127.0.0.1:{port}/nowhere"), "\"nowhere\" does not exist"),
        (format!("mysql://root:hunter2@127.0.0.1:{port}/baton"), "check the user and password"),
    ];
    for (url, expected) in cases {
        let err = MysqlBackend::connect(&url).await.expect_err(&url);
        let message = err.to_string();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{message}");
        assert!(message.contains(expected), "{message}");
        assert!(!message.contains("hunter2") && !message.contains('\n'), "{message}");
    }
    let mut admin = MySqlConnection::connect(&server.url()).await.unwrap();
    let databases: Vec<String> =
        sqlx::query_scalar("SHOW DATABASES LIKE 'nowhere'").fetch_all(&mut admin).await.unwrap();
    assert!(databases.is_empty(), "nothing was created");
}

#[tokio::test]
async fn an_unmigrated_database_asks_for_baton_migrate_and_migrating_again_is_harmless() {
    let server = MariadbServer::start();
    let mut admin = MySqlConnection::connect(&server.url()).await.unwrap();
    sqlx::query("CREATE DATABASE IF NOT EXISTS unmigrated").execute(&mut admin).await.unwrap();
    let url = server.url().replace("/baton", "/unmigrated");
    let backend = MysqlBackend::connect(&url).await.expect("connect");
    let err = backend.leases().list().await.expect_err("no tables yet");
    assert_eq!(err.kind(), ErrorKind::Schema);
    assert!(err.to_string().contains("baton migrate"), "{err}");
    backend.migrate().await.expect("migrate");
    backend.migrate().await.expect("migrating twice changes nothing");
    assert!(backend.leases().list().await.unwrap().is_empty());
    let recorded: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM unmigrated.baton_schema_migrations")
            .fetch_one(&mut admin)
            .await
            .unwrap();
    let migrations = concat!(env!("CARGO_MANIFEST_DIR"), "/../baton-mysql/migrations");
    let files = std::fs::read_dir(migrations).expect("the migrations directory").count();
    assert_eq!(recorded, files as i64, "every migration recorded once");
}
