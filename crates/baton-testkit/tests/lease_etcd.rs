//! The lease conformance suite against a throwaway etcd member, plus what only etcd can get
//! wrong: tokens across a restart, TTLs etcd would not grant as asked, and bad URLs.

mod etcd;

use std::time::Duration;

use baton_core::{
    AcquireParams, ChangeReason, ErrorKind, FencingToken, HistoryParams, HolderId, LeaseName,
    LeaseStore, RenewAllOutcome, RenewAllParams,
};
use baton_etcd::EtcdLeaseStore;
use baton_testkit::conformance::{unique_holder, unique_name};

use crate::etcd::{Etcd, SHORTEST_TTL, acquire};

baton_testkit::lease_conformance!(Etcd::start());

const TTL: Duration = Duration::from_secs(30);

/// The leases `holder` acquires on the first `count` of `names`, with their tokens.
async fn acquire_all(
    store: &EtcdLeaseStore,
    holder: &HolderId,
    names: &[LeaseName],
    ttl: Duration,
) -> Vec<(LeaseName, FencingToken)> {
    let mut held = Vec::with_capacity(names.len());
    for name in names {
        held.push((name.clone(), acquire(store, name, holder, ttl).await.0.token));
    }
    held
}

async fn renew_all(
    store: &EtcdLeaseStore,
    holder: &HolderId,
    leases: &[(LeaseName, FencingToken)],
) -> RenewAllOutcome {
    let params = RenewAllParams { holder: holder.clone(), leases: leases.to_vec() };
    store.renew_all(params).await.expect("renewing")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_renewal_writes_once_whatever_the_number_of_leases() {
    let harness = Etcd::start();
    let store = harness.store().await;
    let holder = unique_holder("many");
    let names: Vec<LeaseName> = (0..300).map(|_| unique_name("many")).collect();
    let mut held = acquire_all(store, &holder, &names[..10], TTL).await;
    for count in [10, 300] {
        held.extend(acquire_all(store, &holder, &names[held.len()..count], TTL).await);
        let before = store.revision().await.unwrap();
        let outcome = renew_all(store, &holder, &held).await;
        assert_eq!((outcome.renewed.len(), outcome.lost.len()), (count, 0));
        let writes = store.revision().await.unwrap() - before;
        assert_eq!(writes, 1, "renewing {count} leases wrote {writes} times");
    }
    let stored = store.get(&names[0]).await.unwrap().expect("held");
    let renewed = renew_all(store, &holder, &held[..1]).await.renewed.remove(0);
    assert!(renewed.renewed_at >= stored.renewed_at);
    let read = store.get(&names[0]).await.unwrap().expect("held");
    assert_eq!(read.renewed_at, renewed.renewed_at, "the renewal is what a read sees");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_first_acquisitions_of_a_holder_share_one_etcd_lease() {
    let harness = Etcd::start();
    let store = harness.store().await;
    let holder = unique_holder("racing");
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let (store, holder) = (store.clone(), holder.clone());
            tokio::spawn(async move {
                let name = unique_name("racing");
                let held = acquire_all(&store, &holder, std::slice::from_ref(&name), TTL).await;
                held[0].clone()
            })
        })
        .collect();
    let mut held = Vec::new();
    for task in tasks {
        held.push(task.await.unwrap());
    }
    let carriers = harness.server.leases_granted_for(TTL.as_secs() as i64);
    assert_eq!(carriers.len(), 1, "one etcd lease carries the holder's leases: {carriers:?}");
    let before = store.revision().await.unwrap();
    assert_eq!(renew_all(store, &holder, &held).await.renewed.len(), 8);
    assert_eq!(store.revision().await.unwrap() - before, 1, "one write renews them");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_holder_whose_etcd_lease_expired_records_no_renewal() {
    let harness = Etcd::start();
    let store = harness.store().await;
    let (holder, name) = (unique_holder("late"), unique_name("late"));
    let held = acquire_all(store, &holder, std::slice::from_ref(&name), 2 * SHORTEST_TTL).await;
    let renewed = renew_all(store, &holder, &held).await.renewed.remove(0);
    let mut changes = store.subscribe().await.unwrap().expect("etcd notifies");
    while changes.next().await.unwrap() != name {}

    let before = store.revision().await.unwrap();
    let outcome = renew_all(store, &holder, &held).await;
    assert_eq!(outcome.lost, std::slice::from_ref(&name), "the lease expired");
    assert_eq!(store.revision().await.unwrap(), before, "a late renewal writes nothing");
    let (_, reason) = acquire(store, &name, &unique_holder("next"), TTL).await;
    assert_eq!(reason, ChangeReason::ExpiredTakeover);
    let history =
        store.history(HistoryParams { lease: Some(name), ..Default::default() }).await.unwrap();
    let taken = history.items.last().expect("the takeover");
    assert_eq!(taken.previous_end, Some(renewed.renewed_at), "the last renewal, not the late one");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renewals_are_recorded_again_after_their_retention_lease_is_gone() {
    let harness = Etcd::start();
    let store = harness.store().await;
    let (holder, name) = (unique_holder("kept"), unique_name("kept"));
    let held = acquire_all(store, &holder, std::slice::from_ref(&name), TTL).await;
    renew_all(store, &holder, &held).await;
    let retention = harness.server.leases_granted_for(3600);
    assert_eq!(retention.len(), 1, "one retention lease per store: {retention:?}");
    harness.server.revoke(&retention[0]);

    let renewed = renew_all(store, &holder, &held).await.renewed.remove(0);
    let read = store.get(&name).await.unwrap().expect("held");
    assert_eq!(read.renewed_at, renewed.renewed_at, "the renewal was recorded");
    assert_eq!(harness.server.leases_granted_for(3600).len(), 1, "a new retention lease");
}

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
