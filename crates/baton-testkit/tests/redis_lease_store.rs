//! The Redis lease store beyond the conformance suite: connection errors, TLS with
//! certificates made here (a throwaway server serving TLS only and demanding client
//! certificates), the release feed,
//! scripts the server forgot, the cost of renewing many leases, the history of every lease, and
//! a fenced write into Redis itself.

mod redis;
mod tls;

use std::path::Path;
use std::time::Duration;

use baton_core::{
    ErrorKind, FencingToken, ForceReleaseParams, HistoryParams, LeaseName, LeaseStore,
    ReleaseParams, RenewAllParams,
};
use baton_redis::{RedisLeaseStore, fence};
use baton_testkit::conformance::{unique_holder, unique_name};
use baton_testkit::servers::{RedisConfig, RedisServer, ServerTls};
use tokio::time::timeout;

use crate::redis::{Redis, acquire, until_expired};
use crate::tls::{Authority, Files};

const TTL: Duration = Duration::from_secs(30);
/// How long a test waits for any one signal.
const PATIENCE: Duration = Duration::from_secs(10);

/// Connecting to `url` fails in one line of kind `kind` that contains `expected` and never the
/// password.
async fn assert_refused(url: &str, kind: ErrorKind, expected: &str, password: &str) {
    let err = RedisLeaseStore::connect(url).await.expect_err("the connection must be refused");
    let message = err.to_string();
    assert_eq!(err.kind(), kind, "{message}");
    assert!(message.contains(expected), "{message}");
    assert!(!message.contains(password), "{message}");
    assert!(!message.contains('\n'), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connection_errors_are_one_line_without_the_password_and_write_nothing() {
    let harness =
        Redis::start_with(RedisConfig { password: Some("s3cret".into()), ..Default::default() });
    let port = harness.server.port();
    let address = format!("127.0.0.1:{port}");
    let wrong = format!("redis://app:hunter2@{address}/0");
    assert_refused(&wrong, ErrorKind::InvalidInput, "refused the credentials", "hunter2").await;
    let missing = format!("redis://{address}/0");
    assert_refused(&missing, ErrorKind::InvalidInput, "NOAUTH", "s3cret").await;
    let database = format!("redis://:s3cret@{address}/99");
    assert_refused(&database, ErrorKind::InvalidInput, "has no database 99", "s3cret").await;
    // A plain server never answers the TLS handshake.
    let tls = format!("rediss://:s3cret@{address}/0");
    assert_refused(&tls, ErrorKind::Timeout, &format!("{address}/0 over TLS"), "s3cret").await;

    let mut raw = harness.raw().await;
    let keys: i64 = ::redis::cmd("DBSIZE").query_async(&mut raw).await.unwrap();
    assert_eq!(keys, 0, "refused connections wrote nothing");

    let unreachable = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let url = format!("redis://:hunter2@127.0.0.1:{unreachable}/0");
    assert_refused(&url, ErrorKind::Unavailable, &format!("127.0.0.1:{unreachable}"), "hunter2")
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_release_feed_announces_forced_releases_and_reports_a_lost_connection() {
    let harness = Redis::start();
    let store = harness.store().await;
    let mut changes = store.subscribe().await.unwrap().expect("Redis notifies");
    let name = unique_name("forced");
    let (lease, _) = acquire(store, &name, &unique_holder("a"), TTL).await;
    let forced = store.force_release(ForceReleaseParams { name: name.clone() }).await.unwrap();
    assert_eq!(forced, Some(lease), "the record as it was before the release");
    let woken = timeout(PATIENCE, changes.next()).await.expect("announced in time").unwrap();
    assert_eq!(woken, name, "a forced release is announced, awaited or not");

    let killed: i64 = ::redis::cmd("CLIENT")
        .arg(&["KILL", "TYPE", "pubsub"][..])
        .query_async(&mut harness.raw().await)
        .await
        .unwrap();
    assert_eq!(killed, 1, "one subscribed connection");
    let err = timeout(PATIENCE, changes.next())
        .await
        .expect("the feed notices in time")
        .expect_err("a broken feed must not stay silent");
    assert_eq!(err.kind(), ErrorKind::Unavailable, "{err}");
    assert!(changes.next().await.is_err(), "the feed stays broken: subscribe again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripts_the_server_forgot_are_loaded_again() {
    let harness = Redis::start();
    let store = harness.store().await;
    let () =
        ::redis::cmd("SCRIPT").arg("FLUSH").query_async(&mut harness.raw().await).await.unwrap();
    let (name, holder) = (unique_name("flushed"), unique_holder("a"));
    let (lease, _) = acquire(store, &name, &holder, TTL).await;
    assert_eq!(store.get(&name).await.unwrap(), Some(lease));
}

/// How many times the server has run `EVALSHA`.
async fn evalsha_calls(harness: &Redis) -> u64 {
    let stats: String = ::redis::cmd("INFO")
        .arg("commandstats")
        .query_async(&mut harness.raw().await)
        .await
        .unwrap();
    let line = stats.lines().find(|line| line.starts_with("cmdstat_evalsha:")).unwrap_or_default();
    let calls = line.split(['=', ',']).nth(1).unwrap_or("0");
    calls.parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renewing_every_lease_of_a_holder_is_one_script_call() {
    let harness = Redis::start();
    let store = harness.store().await;
    let holder = unique_holder("node");
    let mut leases = Vec::new();
    for i in 0..50 {
        let name = unique_name(&format!("many{i}"));
        let (lease, _) = acquire(store, &name, &holder, TTL).await;
        leases.push((name, lease.token));
    }
    let before = evalsha_calls(&harness).await;
    let outcome = store.renew_all(RenewAllParams { holder, leases }).await.unwrap();
    assert_eq!((outcome.renewed.len(), outcome.lost.len()), (50, 0));
    assert_eq!(evalsha_calls(&harness).await, before + 1, "one call renewed 50 leases");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_history_of_every_lease_merges_them_in_token_order() {
    let harness = Redis::start();
    let store = harness.store().await;
    let names: Vec<LeaseName> = ["b", "a", "c"].map(|n| LeaseName::new(n).unwrap()).to_vec();
    let mut expected = Vec::new();
    for round in 0..3 {
        for name in &names {
            let (lease, _) = acquire(store, name, &unique_holder("h"), TTL).await;
            expected.push((name.clone(), lease.token));
            let release = ReleaseParams {
                name: name.clone(),
                holder: lease.holder.clone().unwrap(),
                token: lease.token,
            };
            assert!(store.release(release).await.unwrap(), "round {round}");
        }
    }
    let mut seen = Vec::new();
    let mut after = None;
    loop {
        let page = store.history(HistoryParams { lease: None, after, limit: 4 }).await.unwrap();
        seen.extend(page.items.into_iter().map(|change| (change.lease, change.token)));
        match page.next {
            Some(cursor) => after = Some(cursor),
            None => break,
        }
    }
    assert_eq!(seen, expected);

    let listed: Vec<_> = store.list().await.unwrap().into_iter().map(|lease| lease.name).collect();
    assert_eq!(listed, ["a", "b", "c"].map(|n| LeaseName::new(n).unwrap()), "ordered by name");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fenced_write_with_a_stale_token_is_refused() {
    let harness = Redis::start();
    let store = harness.store().await;
    let name = unique_name("fenced");
    let (old, _) = acquire(store, &name, &unique_holder("old"), Duration::from_millis(200)).await;
    let mut raw = harness.raw().await;
    let mut write = async |token: FencingToken, value: &str| -> i64 {
        ::redis::cmd("EVAL")
            .arg(fence::SCRIPT)
            .arg(2)
            .arg(&["{ledger}:fence", "{ledger}:data"][..])
            .arg(token.get())
            .arg(value)
            .query_async(&mut raw)
            .await
            .unwrap()
    };
    assert_eq!(write(old.token, "first").await, 1, "the holder writes");
    assert_eq!(write(old.token, "second").await, 1, "again under the same token");
    until_expired(store, &old).await;
    let (new, _) = acquire(store, &name, &unique_holder("new"), TTL).await;
    assert_eq!(write(new.token, "third").await, 1, "the next holder writes");
    assert_eq!(write(old.token, "stale").await, 0, "the former holder is fenced off");
    let data: String = ::redis::cmd("GET")
        .arg("{ledger}:data")
        .query_async(&mut harness.raw().await)
        .await
        .unwrap();
    assert_eq!(data, "third");
}

/// The password of the TLS server.
const PASSWORD: &str = "s3cret";

/// A server for 127.0.0.1 signed by `authority`, serving TLS only and demanding client
/// certificates it signed.
fn tls_server(authority: &Authority) -> RedisServer {
    let server = authority.issue("redis", &["127.0.0.1"]);
    let tls = ServerTls {
        cert_pem: server.cert_pem,
        key_pem: server.key_pem,
        client_ca_pem: Some(authority.pem()),
    };
    let config =
        RedisConfig { tls: Some(tls), password: Some(PASSWORD.into()), ..Default::default() };
    RedisServer::start_with(config)
}

fn path(file: &Path) -> String {
    file.display().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leases_over_tls_with_the_right_ca_and_a_client_certificate() {
    let authority = Authority::new("baton test CA");
    let server = tls_server(&authority);
    let files = Files::new();
    let ca = files.write("ca.pem", &authority.pem());
    let client = authority.issue("baton", &["baton"]);
    let cert = files.write("client.pem", &client.cert_pem);
    let key = files.write("client.key", &client.key_pem);
    let url = format!("{}?ca={}&cert={}&key={}", server.url(), path(&ca), path(&cert), path(&key));
    assert!(url.starts_with("rediss://"), "{url}");

    let store = RedisLeaseStore::connect(&url).await.expect("TLS with the right CA");
    let name = unique_name("tls");
    let (lease, _) = acquire(&store, &name, &unique_holder("h"), TTL).await;
    assert_eq!(store.get(&name).await.unwrap(), Some(lease));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_ca_or_a_missing_client_certificate_fails_in_one_line() {
    let authority = Authority::new("baton test CA");
    let server = tls_server(&authority);
    let files = Files::new();
    let client = authority.issue("baton", &["baton"]);
    let cert = path(&files.write("client.pem", &client.cert_pem));
    let key = path(&files.write("client.key", &client.key_pem));
    let endpoint = format!("127.0.0.1:{}/0", server.port());

    let stranger = files.write("stranger.pem", &Authority::new("another CA").pem());
    let url = format!("{}?ca={}&cert={cert}&key={key}", server.url(), path(&stranger));
    let expected =
        format!("cannot connect to Redis at {endpoint} over TLS: invalid peer certificate");
    assert_refused(&url, ErrorKind::Unavailable, &expected, PASSWORD).await;
    let hint = "check the ca=, cert= and key= files";
    assert_refused(&url, ErrorKind::Unavailable, hint, PASSWORD).await;

    let ca = path(&files.write("ca.pem", &authority.pem()));
    let url = format!("{}?ca={ca}", server.url());
    assert_refused(&url, ErrorKind::Unavailable, "CertificateRequired", PASSWORD).await;

    let plain = server.url().replace("rediss://", "redis://");
    assert_refused(&plain, ErrorKind::Unavailable, &endpoint, PASSWORD).await;

    let not_pem = path(&files.write("not.pem", "not a certificate"));
    let url = format!("{}?ca={not_pem}", server.url());
    assert_refused(&url, ErrorKind::InvalidInput, "holds no PEM certificate", PASSWORD).await;
}
