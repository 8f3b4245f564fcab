//! The lease conformance suite against the emulated Consul agent (the slice of Consul's HTTP
//! API the store uses), plus what only the Consul store can get wrong: tokens across a deleted
//! key and a server restart, TTLs Consul refuses, writes whose answers are lost, the lock-delay,
//! and bad input.

mod consul;

use crate::consul::Consul;

baton_testkit::lease_conformance!(Consul::start());

use std::time::Duration;

use baton_consul::ConsulLeaseStore;
use baton_core::{
    AcquireOutcome, AcquireParams, ChangeReason, ErrorKind, ForceReleaseParams, HistoryParams,
    LeaseStore, ReleaseKind, ReleaseParams, RenewParams,
};
use baton_testkit::conformance::{acquire_granted, unique_holder, unique_name};
use baton_testkit::servers::ConsulServer;
use tokio::time::Instant;

use crate::consul::key;

const TTL: Duration = Duration::from_secs(30);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_rise_across_a_deleted_key_and_an_agent_restart() {
    let harness = Consul::start();
    let store = harness.store().await;
    let name = unique_name("deleted");
    let (first, _) = acquire_granted(store, &name, &unique_holder("a"), TTL).await;
    assert!(harness.server.delete_key(&key(&name)));
    let (second, reason) = acquire_granted(store, &name, &unique_holder("b"), TTL).await;
    assert_eq!(reason, ChangeReason::Fresh);
    assert!(second.token > first.token, "{} after {}", second.token, first.token);

    harness.server.restart();
    let holder = second.holder.clone().unwrap();
    let renewal = RenewParams { name: name.clone(), holder, token: second.token };
    let renewed = store.renew(renewal).await.expect("the term survives the restart");
    assert_eq!(renewed.token, second.token);
    store.force_release(ForceReleaseParams { name: name.clone() }).await.unwrap();
    // A second store, which knows nothing of the first one's terms.
    let other = ConsulLeaseStore::connect_with_token(&harness.server.url(), None).await.unwrap();
    let (third, reason) = acquire_granted(&other, &name, &unique_holder("c"), TTL).await;
    assert_eq!(reason, ChangeReason::ForcedRelease);
    assert!(third.token > second.token, "{} after {}", third.token, second.token);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ttls_consul_sessions_cannot_hold_are_refused_and_nothing_is_written() {
    let harness = Consul::start();
    let store = harness.store().await;
    let name = unique_name("ttl");
    for ttl in [Duration::from_secs(5), Duration::from_millis(10_500), Duration::from_secs(86_401)]
    {
        let params = AcquireParams { name: name.clone(), holder: unique_holder("h"), ttl };
        let err = store.acquire(params).await.expect_err("refused");
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert!(err.to_string().contains("whole seconds from 10s to 24h"), "{err}");
        assert!(!err.to_string().contains('\n'));
    }
    assert_eq!(store.get(&name).await.unwrap(), None);
    assert_eq!(harness.server.session_count(), 0, "no session was created");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_whose_answers_are_lost_are_resolved_by_reading_back_not_sent_again() {
    let harness = Consul::start();
    let store = harness.store().await;
    let (name, holder) = (unique_name("ambiguous"), unique_holder("h"));
    let (first, _) = acquire_granted(store, &name, &unique_holder("first"), TTL).await;
    let release = ReleaseParams {
        name: name.clone(),
        holder: first.holder.clone().unwrap(),
        token: first.token,
    };
    assert!(store.release(release).await.unwrap());

    // The acquiring write is applied and its answer lost: sent again, it would write the
    // record twice; the key says the session holds it.
    harness.server.lose_answer_to(&key(&name));
    let params = AcquireParams { name: name.clone(), holder: holder.clone(), ttl: TTL };
    let lease = match store.acquire(params).await.expect("resolved by a read") {
        AcquireOutcome::Acquired { lease, reason } => {
            assert_eq!(reason, ChangeReason::Handover);
            lease
        }
        other => panic!("the applied grant was not recognised: {other:?}"),
    };
    assert!(lease.token > first.token);

    // The same for a renewal's write and a release's.
    harness.server.lose_answer_to(&key(&name));
    let renewal = RenewParams { name: name.clone(), holder: holder.clone(), token: lease.token };
    let renewed = store.renew(renewal).await.expect("resolved by a read");
    let stored = store.get(&name).await.unwrap().unwrap();
    assert_eq!((stored.renewed_at, stored.token), (renewed.renewed_at, lease.token));
    harness.server.lose_answer_to(&key(&name));
    let release = ReleaseParams { name: name.clone(), holder: holder.clone(), token: lease.token };
    assert!(store.release(release).await.expect("resolved by a read"));
    let stored = store.get(&name).await.unwrap().unwrap();
    assert_eq!((stored.holder, stored.released), (None, Some(ReleaseKind::Graceful)));

    let history = store.history(HistoryParams { lease: Some(name), ..Default::default() });
    let tokens: Vec<_> = history.await.unwrap().items.iter().map(|change| change.token).collect();
    assert_eq!(tokens, [first.token, lease.token], "each grant written once");
    assert_eq!(harness.server.session_count(), 0, "every session was destroyed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lock_delay_keeps_a_forced_lease_from_new_holders_until_it_passes() {
    const LOCK_DELAY: Duration = Duration::from_secs(3);
    let server = ConsulServer::start();
    let url = format!("{}?lock_delay={}s", server.url(), LOCK_DELAY.as_secs());
    let store = ConsulLeaseStore::connect_with_token(&url, None).await.unwrap();
    let name = unique_name("delayed");
    acquire_granted(&store, &name, &unique_holder("a"), TTL).await;
    let forced = Instant::now();
    store.force_release(ForceReleaseParams { name: name.clone() }).await.unwrap();
    let params = AcquireParams { name: name.clone(), holder: unique_holder("b"), ttl: TTL };
    let mut refused = 0;
    let reason = loop {
        match store.acquire(params.clone()).await {
            Ok(AcquireOutcome::Acquired { reason, .. }) => break reason,
            Err(err) if err.kind() == ErrorKind::Conflict => {
                assert!(err.to_string().contains("lock-delay"), "{err}");
                refused += 1;
            }
            other => panic!("neither granted nor kept by the lock-delay: {other:?}"),
        }
        assert!(forced.elapsed() < LOCK_DELAY * 5, "the lock-delay never passed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(forced.elapsed() >= LOCK_DELAY, "granted {:?} after the force", forced.elapsed());
    assert!(refused > 0, "the lock-delay refused nobody");
    assert_eq!(reason, ChangeReason::ForcedRelease);

    // A graceful release is no invalidation: the lease is free at once.
    let lease = store.get(&name).await.unwrap().unwrap();
    let holder = lease.holder.clone().unwrap();
    let release = ReleaseParams { name: name.clone(), holder, token: lease.token };
    assert!(store.release(release).await.unwrap());
    acquire_granted(&store, &name, &unique_holder("c"), TTL).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_fails_in_one_line_and_writes_nothing() {
    const SECRET: &str = "a0b1c2d3-secret-token";
    let server = ConsulServer::start_with_acl_token(SECRET);
    let unused = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let not_consul = not_consul().await;
    for (url, token, expected) in [
        (server.url(), None, "refused the ACL token"),
        (server.url(), Some("not-the-token"), "refused the ACL token"),
        (format!("consul://127.0.0.1:{unused}"), None, "cannot reach the Consul agent"),
        (format!("consul://{not_consul}"), None, "is not a Consul agent"),
        ("consul://127.0.0.1".to_string(), None, "is not HOST:PORT"),
        (format!("{}?lock_delay=90s", server.url()), None, "over Consul's 60s"),
        (format!("{}?tls=true", server.url()), None, "unknown parameter \"tls\""),
    ] {
        let err = ConsulLeaseStore::connect_with_token(&url, token.map(str::to_string))
            .await
            .expect_err(&url);
        let text = err.to_string();
        assert!(text.contains(expected), "{url}: {text}");
        assert!(!text.contains('\n') && !text.contains("not-the-token"), "{text}");
    }
    let store = ConsulLeaseStore::connect_with_token(&server.url(), Some(SECRET.into()))
        .await
        .expect("the right token");
    assert!(store.list().await.unwrap().is_empty(), "nothing was written");
    assert!(!format!("{store:?}").contains(SECRET));
    let err = baton::connect(&server.url()).await.unwrap_err().to_string();
    assert!(err.contains("holds leases only"), "{err}");
}

/// An HTTP server that is not Consul: it answers every request with a 404 page.
async fn not_consul() -> std::net::SocketAddr {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut request = vec![0u8; 4096];
                let _ = stream.read(&mut request).await;
                let page = "<html>no such page</html>";
                let answer = format!(
                    "HTTP/1.1 404 Not Found\r\nContent-Length: {}\r\n\r\n{page}",
                    page.len()
                );
                let _ = stream.write_all(answer.as_bytes()).await;
            });
        }
    });
    address
}
