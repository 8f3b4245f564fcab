//! The Redis lease store beyond the conformance suite: connection errors, the release feed,
//! scripts the server forgot, the cost of renewing many leases, the history of every lease, and
//! a fenced write into Redis itself.

mod redis;

use std::time::Duration;

use baton_core::{
    ErrorKind, FencingToken, ForceReleaseParams, HistoryParams, LeaseName, LeaseStore,
    ReleaseParams, RenewAllParams,
};
use baton_redis::{RedisLeaseStore, fence};
use baton_testkit::conformance::{unique_holder, unique_name};
use baton_testkit::servers::RedisConfig;
use tokio::time::timeout;

use crate::redis::{Redis, acquire, until_expired};

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
    let tls = format!("rediss://:s3cret@{address}/0");
    assert_refused(&tls, ErrorKind::InvalidInput, "TLS (rediss://) is not supported", "s3cret")
        .await;

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
