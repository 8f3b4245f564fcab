//! The lease conformance suite against a throwaway PostgreSQL server, plus token durability
//! across a crash of the server.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use baton_core::{
    AcquireOutcome, AcquireParams, ChangeReason, HistoryParams, HolderId, Lease, LeaseName,
    LeaseStore,
};
use baton_postgres::PostgresBackend;
use baton_testkit::conformance::lease::LeaseHarness;
use baton_testkit::conformance::{unique_holder, unique_name};
use baton_testkit::servers::PostgresServer;
use sqlx::Connection;
use tokio::sync::OnceCell;

/// One server per test case; the backend is connected and migrated on first use. Fields drop
/// in order: the pool first, then the server.
struct Postgres {
    backend: OnceCell<PostgresBackend>,
    server: PostgresServer,
}

impl Postgres {
    fn start() -> Self {
        Postgres { backend: OnceCell::new(), server: PostgresServer::start() }
    }

    async fn backend(&self) -> &PostgresBackend {
        self.backend.get_or_init(|| connect(&self.server)).await
    }
}

async fn connect(server: &PostgresServer) -> PostgresBackend {
    let backend = PostgresBackend::connect(&server.url()).await.expect("connect");
    backend.migrate().await.expect("migrate");
    backend
}

#[async_trait]
impl LeaseHarness for Postgres {
    async fn store(&self) -> Arc<dyn LeaseStore> {
        Arc::new(self.backend().await.leases())
    }

    async fn delete_record(&self, name: &LeaseName) {
        let mut conn = sqlx::PgConnection::connect(&self.server.url()).await.expect("connect");
        sqlx::query("DELETE FROM baton_leases WHERE name = $1")
            .bind(name.as_str())
            .execute(&mut conn)
            .await
            .expect("delete the lease row");
        conn.close().await.expect("close");
    }
}

baton_testkit::lease_conformance!(Postgres::start());

async fn acquire_until_granted(
    store: &dyn LeaseStore,
    name: &LeaseName,
    holder: &HolderId,
) -> (Lease, ChangeReason) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let params = AcquireParams {
            name: name.clone(),
            holder: holder.clone(),
            ttl: Duration::from_secs(30),
        };
        if let AcquireOutcome::Acquired { lease, reason } = store.acquire(params).await.unwrap() {
            return (lease, reason);
        }
        assert!(tokio::time::Instant::now() < deadline, "lease {name} never became free");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_token_is_reissued_after_the_server_is_killed_and_restarted() {
    let server = PostgresServer::start();
    let (name, other) = (unique_name("crash"), unique_name("crash-other"));

    let backend = connect(&server).await;
    let store = backend.leases();
    let params = AcquireParams {
        name: name.clone(),
        holder: unique_holder("before"),
        ttl: Duration::from_millis(300),
    };
    let before = match store.acquire(params).await.unwrap() {
        AcquireOutcome::Acquired { lease, .. } => lease.token,
        other => panic!("expected a grant, got {other:?}"),
    };
    drop(store);
    drop(backend);

    server.kill();
    assert!(!server.process().is_running());
    server.restart();

    let backend = connect(&server).await;
    let store = backend.leases();
    let (fresh, reason) = acquire_until_granted(&store, &other, &unique_holder("after")).await;
    assert_eq!(reason, ChangeReason::Fresh);
    assert!(fresh.token > before, "token {} reissued after {before}", fresh.token);
    let (taken, reason) = acquire_until_granted(&store, &name, &unique_holder("after")).await;
    assert_eq!(reason, ChangeReason::ExpiredTakeover);
    assert!(
        taken.token > fresh.token,
        "tokens must keep rising: {} then {}",
        fresh.token,
        taken.token
    );

    let history =
        store.history(HistoryParams { lease: Some(name), ..Default::default() }).await.unwrap();
    let tokens: Vec<_> = history.items.iter().map(|change| change.token).collect();
    assert_eq!(tokens, vec![before, taken.token], "the grant before the crash is on record");
}

#[tokio::test]
async fn connect_errors_name_the_address_but_never_the_password() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let url = format!("postgres://app:hunter2@127.0.0.1:{port}/db");
    let err = PostgresBackend::connect(&url).await.expect_err("nothing listens there");
    assert_eq!(err.kind(), baton_core::ErrorKind::Unavailable);
    let message = err.to_string();
    assert!(message.contains(&format!("127.0.0.1:{port}")), "{message}");
    assert!(!message.contains("hunter2"), "{message}");
    assert!(!message.contains('\n'), "{message}");
}

#[tokio::test]
async fn an_unmigrated_database_asks_for_baton_migrate() {
    let server = PostgresServer::start();
    let backend = PostgresBackend::connect(&server.url()).await.expect("connect");
    let err = backend.leases().list().await.expect_err("no tables yet");
    assert_eq!(err.kind(), baton_core::ErrorKind::Schema);
    assert!(err.to_string().contains("baton migrate"), "{err}");
    backend.migrate().await.expect("migrate");
    backend.migrate().await.expect("migrating twice changes nothing");
    assert!(backend.leases().list().await.unwrap().is_empty());
    let mut conn = sqlx::PgConnection::connect(&server.url()).await.unwrap();
    let (ours, default): (bool, bool) = sqlx::query_as(
        "SELECT to_regclass($1) IS NOT NULL, to_regclass('_sqlx_migrations') IS NOT NULL",
    )
    .bind(baton_postgres::MIGRATIONS_TABLE)
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert!(ours && !default, "baton's migrations are recorded apart from the application's");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn force_release_wakes_subscribers_and_answers_the_previous_record() {
    let harness = Postgres::start();
    let store = harness.store().await;
    let mut changes = store.subscribe().await.unwrap().expect("PostgreSQL notifies");
    let (name, holder) = (unique_name("forced"), unique_holder("a"));
    let (lease, _) = acquire_until_granted(&*store, &name, &holder).await;
    let previous = store
        .force_release(baton_core::ForceReleaseParams { name: name.clone() })
        .await
        .unwrap()
        .expect("the lease was held");
    assert_eq!(previous, lease, "the record as it was before the release");
    let woken = tokio::time::timeout(Duration::from_secs(10), changes.next())
        .await
        .expect("a notification within 10 s")
        .unwrap();
    assert_eq!(woken, name);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_release_feed_reports_an_error() {
    let harness = Postgres::start();
    let store = harness.store().await;
    let mut changes = store.subscribe().await.unwrap().expect("PostgreSQL notifies");
    let mut admin = sqlx::PgConnection::connect(&harness.server.url()).await.unwrap();
    let terminated: Vec<bool> = sqlx::query_scalar(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN %'",
    )
    .fetch_all(&mut admin)
    .await
    .unwrap();
    assert_eq!(terminated, [true], "one listening connection");
    let err = tokio::time::timeout(Duration::from_secs(10), changes.next())
        .await
        .expect("the feed notices within 10 s")
        .expect_err("a broken feed must not stay silent");
    assert_eq!(err.kind(), baton_core::ErrorKind::Unavailable, "{err}");
    assert!(changes.next().await.is_err(), "the feed stays broken: subscribe again");
}
