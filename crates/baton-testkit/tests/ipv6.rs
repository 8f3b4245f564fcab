//! Backend URLs with an IPv6 literal host (`[::1]`), against throwaway servers listening on the
//! IPv6 loopback address. A machine without `::1` fails these tests, naming what to enable.

use std::time::Duration;

use baton_core::{AcquireOutcome, AcquireParams, HolderId, LeaseName, LeaseStore};
use baton_redis::RedisLeaseStore;
use baton_testkit::servers::{PostgresConfig, PostgresServer, RedisConfig, RedisServer};
use sqlx::Connection;

fn acquire(name: &LeaseName) -> AcquireParams {
    let holder: HolderId = "ipv6-test".parse().unwrap();
    AcquireParams { name: name.clone(), holder, ttl: Duration::from_secs(30) }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_connects_to_an_ipv6_literal_host() {
    let server = PostgresServer::start_with(PostgresConfig { ipv6: true, ..Default::default() });
    let url = server.url_ipv6();
    let backend = baton::connect(&url).await.unwrap_or_else(|err| panic!("{url}: {err}"));
    backend.migrate().await.expect("migrate over IPv6");
    let name: LeaseName = "over-ipv6".parse().unwrap();
    let outcome = backend.leases().acquire(acquire(&name)).await.expect("acquire over IPv6");
    assert!(matches!(outcome, AcquireOutcome::Acquired { .. }), "{outcome:?}");

    let mut admin =
        sqlx::PgConnection::connect(&server.url()).await.expect("the test's connection");
    let clients: Vec<String> = sqlx::query_scalar(
        "SELECT host(client_addr) FROM pg_stat_activity WHERE application_name = 'baton'",
    )
    .fetch_all(&mut admin)
    .await
    .unwrap();
    assert!(!clients.is_empty() && clients.iter().all(|addr| addr == "::1"), "{clients:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_names_an_ipv6_endpoint_in_brackets() {
    let unused = std::net::TcpListener::bind("[::1]:0")
        .unwrap_or_else(|err| panic!("this machine has no IPv6 loopback address ::1: {err}"));
    let port = unused.local_addr().unwrap().port();
    drop(unused);
    let err = baton::connect(&format!("postgres://app:hunter2@[::1]:{port}/db"))
        .await
        .expect_err("nothing listens there");
    let message = err.to_string();
    assert!(
        message.contains(&format!("cannot connect to PostgreSQL at [::1]:{port}: ")),
        "{message}"
    );
    assert!(!message.contains("hunter2"), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_connects_to_an_ipv6_literal_host() {
    let server = RedisServer::start_with(RedisConfig { ipv6: true, ..Default::default() });
    let url = server.url_ipv6();
    let store = RedisLeaseStore::connect(&url).await.unwrap_or_else(|err| panic!("{url}: {err}"));
    let name: LeaseName = "over-ipv6".parse().unwrap();
    let outcome = store.acquire(acquire(&name)).await.expect("acquire over IPv6");
    assert!(matches!(outcome, AcquireOutcome::Acquired { .. }), "{outcome:?}");

    let client = redis::Client::open(server.url()).unwrap();
    let mut raw = client.get_multiplexed_async_connection().await.unwrap();
    let clients: String = redis::cmd("CLIENT").arg("LIST").query_async(&mut raw).await.unwrap();
    assert!(clients.contains("addr=[::1]:"), "{clients}");
}
