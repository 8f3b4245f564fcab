//! The lease conformance suite against one throwaway ZooKeeper server shared by this test
//! process, plus what only ZooKeeper can get wrong: tokens across a server restart and a
//! session expiry, TTLs the session cannot carry, a connection reset under a request, a
//! session resumed after a long disconnection, and bad URLs.

mod zookeeper;

use std::time::Duration;

use baton_core::{AcquireOutcome, AcquireParams, ChangeReason, ErrorKind, LeaseStore, RenewParams};
use baton_testkit::conformance::{unique_holder, unique_name};
use baton_testkit::proxy::{FaultProxy, Mode};
use baton_testkit::servers::ZookeeperServer;
use baton_zookeeper::ZkLeaseStore;

use crate::zookeeper::{Zookeeper, acquire};

baton_testkit::lease_conformance!(Zookeeper::shared());

const TTL: Duration = Duration::from_secs(10);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_rise_after_a_server_restart() {
    let server = ZookeeperServer::start();
    let store = ZkLeaseStore::connect(&server.url()).await.unwrap();
    let name = unique_name("restart");
    let (before, _) = acquire(&store, &name, &unique_holder("h"), Duration::from_millis(500)).await;

    server.process().kill();
    server.process().restart();

    // The record and the term survive (the snapshot and the log keep them, and the session
    // too); the term lapses on the ensemble's clock and is taken over with a greater token.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let (taken, reason) = loop {
        let params = AcquireParams { name: name.clone(), holder: unique_holder("h"), ttl: TTL };
        if let Ok(AcquireOutcome::Acquired { lease, reason }) = store.acquire(params).await {
            break (lease, reason);
        }
        assert!(tokio::time::Instant::now() < deadline, "never granted after the restart");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(reason, ChangeReason::ExpiredTakeover);
    assert!(taken.token > before.token, "{} then {}", before.token, taken.token);
    let (other, _) = acquire(&store, &unique_name("restart-other"), &unique_holder("h"), TTL).await;
    assert!(other.token > taken.token, "a lease never held gets a greater token too");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ttl_longer_than_the_session_is_refused_and_writes_nothing() {
    let url = format!("{}?session_timeout=2s", ZookeeperServer::shared().url());
    let store = ZkLeaseStore::connect(&url).await.unwrap();
    assert_eq!(store.session_timeout(), Duration::from_secs(2));
    let name = unique_name("long");
    let params = AcquireParams {
        name: name.clone(),
        holder: unique_holder("h"),
        ttl: Duration::from_secs(3),
    };
    let err = store.acquire(params).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(err.to_string().contains("session timeout 2s"), "{err}");
    assert_eq!(store.get(&name).await.unwrap(), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_urls_get_one_line_and_write_nothing() {
    let url = ZookeeperServer::shared().url();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let closed = format!("zk://127.0.0.1:{port}");
    for (bad, says) in [
        ("zk://".to_string(), "no host"),
        (format!("{url}/no/such/chroot"), "has no node /no/such/chroot"),
        (closed, "cannot connect to ZooKeeper"),
    ] {
        let err = ZkLeaseStore::connect(&bad).await.unwrap_err();
        let text = err.to_string();
        assert!(text.contains(says) && !text.contains('\n'), "{bad}: {text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_digest_credentials_are_refused() {
    let server = ZookeeperServer::start();
    let owner = ZkLeaseStore::connect(&format!("zk://alice:right@127.0.0.1:{}", server.port()))
        .await
        .unwrap();
    acquire(&owner, &unique_name("mine"), &unique_holder("h"), TTL).await;
    for (url, says) in [
        (format!("zk://alice:wrong@127.0.0.1:{}", server.port()), "digest credentials of the URL"),
        (server.url(), "URL without credentials"),
    ] {
        let err = ZkLeaseStore::connect(&url).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert!(err.to_string().contains(says), "{err}");
        assert!(!err.to_string().contains("wrong"), "the password is masked: {err}");
    }
}

/// A member that resets the connection while a request is in flight (as one killed under its
/// clients does) leaves the request's outcome unknown: a transient error the elector retries,
/// never a fatal one that ends a campaign.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reset_connection_leaves_the_outcome_unknown() {
    let server = ZookeeperServer::shared();
    let upstream = format!("127.0.0.1:{}", server.port()).parse().unwrap();
    let proxy = FaultProxy::start(upstream).await.unwrap();
    let url = format!("zk://{}?session_timeout=4s", proxy.addr());
    let store = ZkLeaseStore::connect(&url).await.unwrap();
    proxy.set_mode(Mode::Delay(Duration::from_secs(30)));
    let params = AcquireParams {
        name: unique_name("reset"),
        holder: unique_holder("h"),
        ttl: Duration::from_secs(2),
    };
    let delayed = proxy.delayed_count();
    let acquiring = tokio::spawn(async move { store.acquire(params).await });
    tokio::time::timeout(Duration::from_secs(30), proxy.wait_delayed(delayed + 1))
        .await
        .expect("the acquisition's request never reached the proxy");
    proxy.set_mode(Mode::Reset);
    let err = acquiring.await.unwrap().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unavailable, "{err}");
    assert!(err.kind().outcome_unknown(), "{err}");
}

/// The client's own reconnection backs off, doubling its pause after each failed attempt. Once
/// the member serves again, the session is resumed on a fresh connection without waiting for
/// that back-off, and it is the same session: the term node survives and renews.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_is_resumed_without_waiting_out_the_clients_back_off() {
    let server = ZookeeperServer::shared();
    let upstream = format!("127.0.0.1:{}", server.port()).parse().unwrap();
    let proxy = FaultProxy::start(upstream).await.unwrap();
    let store =
        ZkLeaseStore::connect(&format!("zk://{}?session_timeout=40s", proxy.addr())).await.unwrap();
    let (name, holder) = (unique_name("resume"), unique_holder("h"));
    let (held, _) = acquire(&store, &name, &holder, Duration::from_secs(30)).await;

    // With one member, the client's attempts after the first are 0.1 s, 0.2 s, … 6.4 s apart
    // (plus up to 0.1 s each): once it has made 8, its next one is at least 12.8 s away.
    let accepted = proxy.accepted_count();
    proxy.set_mode(Mode::Reset);
    tokio::time::timeout(Duration::from_secs(60), proxy.wait_accepted(accepted + 8))
        .await
        .expect("the client stopped reconnecting");
    proxy.set_mode(Mode::Pass);

    let renewed = tokio::time::timeout(
        Duration::from_secs(6),
        store.renew(RenewParams { name: name.clone(), holder, token: held.token }),
    )
    .await
    .expect("the session came back only with the client's own back-off")
    .expect("the renewal after the reconnection failed");
    assert_eq!(renewed.token, held.token);
}
