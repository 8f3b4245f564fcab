//! The lease conformance suite against the emulated Kubernetes API server (Lease objects in a
//! real etcd), plus what only the Kubernetes store can get wrong: tokens across deleted
//! objects, a client-go elector on the same Lease, what kubectl reads, and bad input.

mod kube;

use std::time::Duration;

use baton_core::{
    AcquireOutcome, AcquireParams, ChangeReason, ErrorKind, ForceReleaseParams, HistoryParams,
    LeaseStore, RenewParams,
};
use baton_kube::KubeLeaseStore;
use baton_testkit::conformance::{acquire_granted, unique_holder, unique_name};
use baton_testkit::ledger::{Append, Ledger, RESOURCE};
use tokio::time::Instant;

use crate::kube::{ClientGoElector, Kube, SHORTEST_TTL, url};

baton_testkit::lease_conformance!(Kube::start());

const TTL: Duration = Duration::from_secs(30);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_rise_after_the_lease_and_then_its_counter_are_deleted() {
    let harness = Kube::start();
    let store = harness.store().await;
    let name = unique_name("deleted");
    let (first, _) = acquire_granted(store, &name, &unique_holder("a"), TTL).await;
    assert!(harness.server.etcd().delete_key(&format!("/registry/leases/default/{name}")));
    let (second, reason) = acquire_granted(store, &name, &unique_holder("b"), TTL).await;
    assert_eq!(reason, ChangeReason::Fresh);
    assert!(second.token > first.token, "{} after {}", second.token, first.token);

    let counter = "/registry/leases/default/baton-fencing-tokens";
    assert!(harness.server.etcd().delete_key(counter), "the counter is a Lease object");
    store.force_release(ForceReleaseParams { name: name.clone() }).await.unwrap();
    // A second store, whose cached counter cannot hide the deletion.
    let other = KubeLeaseStore::connect(&harness.url()).await.unwrap();
    let (third, _) = acquire_granted(&other, &name, &unique_holder("c"), TTL).await;
    assert!(third.token > second.token, "{} after {}", third.token, second.token);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_go_elector_and_baton_never_hold_the_lease_together_and_tokens_still_rise() {
    let harness = Kube::start();
    let store = harness.store().await;
    let name = unique_name("shared");
    let dir = tempfile::tempdir().unwrap();
    let ledger_url = format!("sqlite://{}", dir.path().join("ledger.db").display());
    baton::connect(&ledger_url).await.unwrap().migrate().await.unwrap();
    let ledger = Ledger::open(&ledger_url).await.unwrap();
    let baton_a = unique_holder("baton-a");
    let (first, _) = acquire_granted(store, &name, &baton_a, SHORTEST_TTL * 2).await;
    assert!(matches!(
        ledger.append(RESOURCE, "baton-a", first.token, None).await.unwrap(),
        Append::Accepted
    ));

    // While baton renews, the client-go elector is refused; once baton stops, it takes over.
    let mut client_go =
        ClientGoElector::new(harness.leases().await, name.as_str(), "client-go-1", 2);
    let renew = RenewParams { name: name.clone(), holder: baton_a.clone(), token: first.token };
    let refused_until = Instant::now() + SHORTEST_TTL * 5;
    while Instant::now() < refused_until {
        assert!(!client_go.try_acquire_or_renew().await, "client-go took a lease baton renews");
        store.renew(renew.clone()).await.expect("baton renews");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let stopped = Instant::now();
    while !client_go.try_acquire_or_renew().await {
        assert!(stopped.elapsed() < Duration::from_secs(20), "client-go never took over");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(stopped.elapsed() >= SHORTEST_TTL * 2, "client-go took over within baton's term");
    assert_eq!(store.renew(renew).await.unwrap_err().kind(), ErrorKind::LeaseLost);

    // While client-go renews, baton is refused; once it stops, baton takes over above.
    let baton_b = unique_holder("baton-b");
    let params =
        AcquireParams { name: name.clone(), holder: baton_b.clone(), ttl: SHORTEST_TTL * 2 };
    let refused_until = Instant::now() + SHORTEST_TTL * 5;
    while Instant::now() < refused_until {
        match store.acquire(params.clone()).await.unwrap() {
            AcquireOutcome::Held(lease) => {
                assert_eq!(lease.holder.unwrap().as_str(), "client-go-1")
            }
            other => panic!("baton took a lease client-go renews: {other:?}"),
        }
        assert!(client_go.try_acquire_or_renew().await, "client-go keeps its lease");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let stopped = Instant::now();
    let (second, reason) = loop {
        match store.acquire(params.clone()).await.unwrap() {
            AcquireOutcome::Acquired { lease, reason } => break (lease, reason),
            _ => assert!(stopped.elapsed() < Duration::from_secs(20), "baton never took over"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(stopped.elapsed() >= SHORTEST_TTL * 2, "baton took over within client-go's term");
    assert_eq!(reason, ChangeReason::ExpiredTakeover);
    assert!(second.token > first.token, "{} after {}", second.token, first.token);
    let stored = harness.server.lease("default", name.as_str()).expect("the Lease");
    assert_eq!(stored["spec"]["leaseTransitions"], 2, "baton → client-go → baton: {stored}");
    assert!(matches!(
        ledger.append(RESOURCE, "baton-b", second.token, None).await.unwrap(),
        Append::Accepted
    ));
    assert!(
        matches!(
            ledger.append(RESOURCE, "baton-a", first.token, None).await.unwrap(),
            Append::Rejected
        ),
        "the earlier baton holder's fenced write is refused"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_reads_the_lease_and_the_leader_changes_as_its_own() {
    let harness = Kube::start();
    let store = harness.store().await;
    let name = unique_name("kubectl");
    let holder = unique_holder("h");
    let (lease, _) = acquire_granted(store, &name, &holder, TTL).await;
    let kubectl = |args: &[&str]| {
        let out = std::process::Command::new("kubectl")
            .arg("--kubeconfig")
            .arg(harness.server.tls_kubeconfig())
            .args(args)
            .output()
            .expect("kubectl not found: install kubectl (scripts/test does, as root)");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let json: serde_json::Value =
        serde_json::from_str(&kubectl(&["get", "lease", name.as_str(), "-o", "json"])).unwrap();
    assert_eq!(json["spec"]["holderIdentity"], holder.as_str());
    assert_eq!(json["spec"]["leaseDurationSeconds"], 30);
    assert_eq!(
        json["metadata"]["annotations"]["baton-rs.github.io/token"],
        lease.token.to_string()
    );
    let events = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let events = harness.server.events("default");
            if !events.is_empty() {
                return events;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("an Event for the leader change");
    assert_eq!(events[0]["involvedObject"]["name"], name.as_str());
    let listed = kubectl(&["get", "events", "-o", "jsonpath={.items[*].message}"]);
    assert!(
        listed.contains(&format!("{holder} became leader under fencing token {}", lease.token)),
        "{listed}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_fails_in_one_line_and_writes_nothing() {
    let harness = Kube::start();
    harness.server.forbid_leases("locked");
    harness.server.create_namespace("locked");
    let unused = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = dir.path().join("kubeconfig");
    let config = std::fs::read_to_string(harness.server.kubeconfig()).unwrap();
    std::fs::write(
        &elsewhere,
        config.replace(&harness.server.port().to_string(), &unused.to_string()),
    )
    .unwrap();
    let wrong_token = dir.path().join("wrong-token");
    std::fs::write(
        &wrong_token,
        std::fs::read_to_string(harness.server.kubeconfig())
            .unwrap()
            .replace(harness.server.token(), "not-the-token"),
    )
    .unwrap();
    for (url, expected) in [
        (url(&harness.server, "absent"), "namespace absent does not exist"),
        (url(&harness.server, "locked"), "forbidden"),
        (
            "kube://default?kubeconfig=/nonexistent/kubeconfig".to_string(),
            "cannot read the kubeconfig",
        ),
        (format!("kube://default?kubeconfig={}", elsewhere.display()), "cannot reach"),
        (format!("kube://default?kubeconfig={}", wrong_token.display()), "refused the credentials"),
    ] {
        let err = KubeLeaseStore::connect(&url).await.expect_err(&url);
        let text = err.to_string();
        assert!(text.contains(expected), "{url}: {text}");
        assert!(!text.contains('\n') && !text.contains("not-the-token"), "{text}");
    }
    let store = harness.store().await;
    for bad in ["Nightly", "nightly_run", "baton-fencing-tokens"] {
        let params =
            AcquireParams { name: bad.parse().unwrap(), holder: unique_holder("h"), ttl: TTL };
        let err = store.acquire(params).await.expect_err(bad);
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert!(err.to_string().contains(bad), "{err}");
    }
    let fraction = AcquireParams {
        name: unique_name("ttl"),
        holder: unique_holder("h"),
        ttl: Duration::from_millis(1500),
    };
    assert!(store.acquire(fraction).await.unwrap_err().to_string().contains("whole seconds"));
    assert!(store.list().await.unwrap().is_empty(), "nothing was written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_whose_answers_are_lost_are_resolved_by_reading_back_not_sent_again() {
    let harness = Kube::start();
    let store = harness.store().await;
    let (name, holder) = (unique_name("ambiguous"), unique_holder("h"));
    let (first, _) = acquire_granted(store, &name, &unique_holder("first"), TTL).await;
    let release = baton_core::ReleaseParams {
        name: name.clone(),
        holder: first.holder.clone().unwrap(),
        token: first.token,
    };
    assert!(store.release(release).await.unwrap());

    // The grant is applied and its answer lost: sent again, it would meet a conflict.
    harness.server.lose_answer_to(name.as_str());
    let params = AcquireParams { name: name.clone(), holder: holder.clone(), ttl: TTL };
    let lease = match store.acquire(params).await.expect("resolved by a read") {
        AcquireOutcome::Acquired { lease, .. } => lease,
        other => panic!("the applied grant was not recognised: {other:?}"),
    };
    assert!(lease.token > first.token);

    // The same for a renewal.
    harness.server.lose_answer_to(name.as_str());
    let renewal = RenewParams { name: name.clone(), holder: holder.clone(), token: lease.token };
    let renewed = store.renew(renewal).await.expect("resolved by a read");
    assert!(renewed.renewed_at >= lease.renewed_at);
    let stored = store.get(&name).await.unwrap().unwrap();
    assert_eq!((stored.renewed_at, stored.token), (renewed.renewed_at, lease.token));
    let history = store.history(HistoryParams { lease: Some(name), ..Default::default() });
    let tokens: Vec<_> = history.await.unwrap().items.iter().map(|change| change.token).collect();
    assert_eq!(tokens, [first.token, lease.token], "each grant written once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_counter_created_anew_starts_above_every_lease_whichever_is_deleted_later() {
    let harness = Kube::start();
    let store = harness.store().await;
    let (low, high) = (unique_name("low"), unique_name("high"));
    let (held_low, _) = acquire_granted(store, &low, &unique_holder("a"), TTL).await;
    let mut highest = held_low.token;
    for _ in 0..3 {
        let (lease, _) = acquire_granted(store, &high, &unique_holder("b"), TTL).await;
        highest = lease.token;
        store.force_release(ForceReleaseParams { name: high.clone() }).await.unwrap();
    }
    let counter = "/registry/leases/default/baton-fencing-tokens";
    assert!(harness.server.etcd().delete_key(counter));
    store.force_release(ForceReleaseParams { name: low.clone() }).await.unwrap();
    // A second store, whose cached counter cannot hide the deletion.
    let other = KubeLeaseStore::connect(&harness.url()).await.unwrap();
    let (again, _) = acquire_granted(&other, &low, &unique_holder("c"), TTL).await;
    assert!(again.token > highest, "{} after {highest} on another lease", again.token);
    assert!(harness.server.etcd().delete_key(&format!("/registry/leases/default/{high}")));
    let (fresh, reason) = acquire_granted(&other, &high, &unique_holder("d"), TTL).await;
    assert_eq!(reason, ChangeReason::Fresh);
    assert!(fresh.token > highest, "{} after {highest}", fresh.token);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_renewal_writes_its_own_duration_over_another_writers() {
    let harness = Kube::start();
    let store = harness.store().await;
    let (name, holder) = (unique_name("edited"), unique_holder("h"));
    let (lease, _) = acquire_granted(store, &name, &holder, TTL).await;
    let leases = harness.leases().await;
    let mut edited = leases.get(name.as_str()).await.unwrap();
    edited.spec.as_mut().unwrap().lease_duration_seconds = Some(3);
    leases.replace(name.as_str(), &Default::default(), &edited).await.unwrap();

    let renewal = RenewParams { name: name.clone(), holder, token: lease.token };
    let renewed = store.renew(renewal).await.expect("still the holder's term");
    assert_eq!(renewed.ttl, TTL);
    let stored = harness.server.lease("default", name.as_str()).unwrap();
    assert_eq!(stored["spec"]["leaseDurationSeconds"], 30, "{stored}");
}
