//! The lease conformance suite against a throwaway Redis server, plus what only Redis can get
//! wrong: tokens across a restart that loses the dataset or keeps it, and script calls whose
//! answer never comes.

mod redis;

use std::time::Duration;

use baton_core::{AcquireParams, ChangeReason, ErrorKind, HistoryParams, LeaseStore};
use baton_redis::{RedisLeaseStore, RedisOptions};
use baton_testkit::conformance::{unique_holder, unique_name};
use baton_testkit::servers::RedisConfig;

use crate::redis::{Redis, acquire, until_expired};

baton_testkit::lease_conformance!(Redis::start());

const TTL: Duration = Duration::from_secs(30);

/// After the server restarts, the store's first call finds the old connection broken (an
/// unknown outcome) and the next one connects again.
async fn reconnect(store: &RedisLeaseStore) {
    let err = store.now().await.expect_err("the connection from before the restart is gone");
    assert!(err.kind().outcome_unknown(), "{err}");
    store.now().await.expect("a new connection");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_rise_after_a_restart_that_loses_the_dataset() {
    let harness = Redis::start();
    let store = harness.store().await;
    let name = unique_name("amnesia");
    let (before, _) = acquire(store, &name, &unique_holder("h"), TTL).await;

    harness.server.process().kill();
    harness.server.process().restart();
    reconnect(store).await;

    assert_eq!(store.get(&name).await.unwrap(), None, "nothing survives without persistence");
    let (after, reason) = acquire(store, &name, &unique_holder("h"), TTL).await;
    assert_eq!(reason, ChangeReason::Fresh);
    assert!(after.token > before.token, "{} issued after {}", after.token, before.token);
    let (other, _) = acquire(store, &unique_name("amnesia-other"), &unique_holder("h"), TTL).await;
    assert!(other.token > before.token, "a lease never held gets a greater token too");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_rise_after_a_restart_that_keeps_the_data() {
    let harness = Redis::start_with(RedisConfig { append_only: true, ..Default::default() });
    let store = harness.store().await;
    let name = unique_name("durable");
    let (before, _) = acquire(store, &name, &unique_holder("h"), Duration::from_millis(300)).await;

    harness.server.process().kill();
    harness.server.process().restart();
    reconnect(store).await;

    assert_eq!(store.get(&name).await.unwrap(), Some(before.clone()), "the AOF kept the record");
    until_expired(store, &before).await;
    let (taken, reason) = acquire(store, &name, &unique_holder("h"), TTL).await;
    assert_eq!(reason, ChangeReason::ExpiredTakeover);
    assert!(taken.token > before.token, "{} then {}", before.token, taken.token);
    let history =
        store.history(HistoryParams { lease: Some(name), ..Default::default() }).await.unwrap();
    let tokens: Vec<_> = history.items.iter().map(|change| change.token).collect();
    assert_eq!(tokens, [before.token, taken.token], "the grant before the crash is on record");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_call_left_unanswered_has_an_unknown_outcome_and_is_not_sent_again() {
    let harness = Redis::start();
    let options = RedisOptions::default().response_timeout(Duration::from_millis(300)).unwrap();
    let store = RedisLeaseStore::connect_with(&harness.server.url(), options).await.unwrap();
    let (name, holder) = (unique_name("paused"), unique_holder("a"));

    harness.server.process().pause();
    let params = AcquireParams { name: name.clone(), holder: holder.clone(), ttl: TTL };
    let err = store.acquire(params).await.expect_err("the server is paused");
    harness.server.process().resume();
    assert_eq!(err.kind(), ErrorKind::Timeout, "{err}");
    assert!(err.kind().outcome_unknown());
    assert!(err.to_string().contains("outcome is unknown"), "{err}");

    // The server ran the script once it was resumed: the caller reads back to learn it.
    let stored = store.get(&name).await.unwrap().expect("the acquisition took effect");
    assert_eq!(stored.holder, Some(holder));
    let history =
        store.history(HistoryParams { lease: Some(name), ..Default::default() }).await.unwrap();
    assert_eq!(history.items.len(), 1, "the script ran once: nothing sent it again");
}
