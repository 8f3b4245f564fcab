//! The lease conformance suite against a throwaway etcd member, plus what only etcd can get
//! wrong: tokens across a restart, TTLs etcd would not grant as asked, and bad URLs.

mod etcd;

use std::time::Duration;

use baton_core::{AcquireParams, ChangeReason, ErrorKind, HistoryParams, LeaseStore};
use baton_etcd::EtcdLeaseStore;
use baton_testkit::conformance::{unique_holder, unique_name};

use crate::etcd::{Etcd, acquire};

baton_testkit::lease_conformance!(Etcd::start());

const TTL: Duration = Duration::from_secs(30);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_rise_after_a_restart_and_the_record_survives() {
    let harness = Etcd::start();
    let store = harness.store().await;
    let name = unique_name("durable");
    let (before, _) = acquire(store, &name, &unique_holder("h"), TTL).await;

    harness.server.process().kill();
    harness.server.process().restart();
    harness.server.wait_healthy();

    let stored = store.get(&name).await;
    let stored = match stored {
        Ok(stored) => stored,
        // The connection from before the restart is gone: the next call opens a new one.
        Err(err) if err.kind().outcome_unknown() => {
            store.get(&name).await.expect("a new connection")
        }
        Err(err) => panic!("{err}"),
    };
    assert_eq!(stored.map(|lease| lease.token), Some(before.token), "etcd kept the record");
    let force = baton_core::ForceReleaseParams { name: name.clone() };
    store.force_release(force).await.unwrap();
    let (after, reason) = acquire(store, &name, &unique_holder("h"), TTL).await;
    assert_eq!(reason, ChangeReason::ForcedRelease);
    assert!(after.token > before.token, "{} issued after {}", after.token, before.token);
    let history =
        store.history(HistoryParams { lease: Some(name), ..Default::default() }).await.unwrap();
    let tokens: Vec<_> = history.items.iter().map(|change| change.token).collect();
    assert_eq!(tokens, [before.token, after.token], "the grant before the restart is on record");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ttls_etcd_would_not_grant_as_asked_are_refused_and_write_nothing() {
    let harness = Etcd::start();
    let store = harness.store().await;
    let name = unique_name("ttl");
    for ttl in [Duration::from_millis(1500), Duration::from_millis(300)] {
        let params = AcquireParams { name: name.clone(), holder: unique_holder("h"), ttl };
        let err = store.acquire(params).await.expect_err("not whole seconds");
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert!(err.to_string().contains("whole"), "{err}");
    }
    assert_eq!(store.get(&name).await.unwrap(), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_are_checked_on_connect_and_used_for_every_call() {
    let harness = Etcd::start();
    harness.server.enable_auth("s3cret");
    let port = harness.server.port();
    for url in [format!("etcd://root:wrong@127.0.0.1:{port}"), format!("etcd://127.0.0.1:{port}")] {
        let err = EtcdLeaseStore::connect(&url).await.expect_err(&url);
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{url}: {err}");
        assert!(err.to_string().contains("check the user and password"), "{err}");
        assert!(!err.to_string().contains('\n') && !err.to_string().contains("wrong"), "{err}");
    }
    let store =
        EtcdLeaseStore::connect(&format!("etcd://root:s3cret@127.0.0.1:{port}")).await.unwrap();
    let (lease, _) = acquire(&store, &unique_name("auth"), &unique_holder("h"), TTL).await;
    assert_eq!(store.get(&lease.name).await.unwrap().map(|stored| stored.token), Some(lease.token));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_urls_and_unreachable_members_fail_in_one_line() {
    let harness = Etcd::start();
    let port = harness.server.port();
    let unused = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    for (url, expected) in [
        ("etcd://".to_string(), "has no host"),
        (format!("etcd://127.0.0.1:{port}/prefix"), "no path"),
        (format!("etcd://127.0.0.1:{unused}"), "cannot reach etcd"),
        (format!("etcd://app:secret@127.0.0.1:{port}"), "authentication is not enabled"),
    ] {
        let err = EtcdLeaseStore::connect(&url).await.expect_err(&url);
        let text = err.to_string();
        assert!(text.contains(expected), "{url}: {text}");
        assert!(!text.contains('\n') && !text.contains("secret"), "{text}");
    }
    let store = EtcdLeaseStore::connect(&format!("etcd://127.0.0.1:{unused},127.0.0.1:{port}"))
        .await
        .expect("an unreachable member is passed over");
    assert!(store.list().await.unwrap().is_empty(), "nothing was written");
}
