//! The lease conformance suite (invariants I1, I2 and I8, and change notification).

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use baton_core::{
    AcquireOutcome, AcquireParams, ChangeReason, ErrorKind, FencingToken, ForceReleaseParams,
    HistoryParams, HolderId, Lease, LeaseName, LeaseStore, ReleaseParams, RenewAllParams,
    RenewParams,
};

pub use super::lease_failover::a_leader_change_records_when_the_previous_term_ended;
use super::{unique_holder, unique_name};

/// How a suite reaches one backend.
#[async_trait]
pub trait LeaseHarness: Send + Sync {
    /// A handle on the store under test; every handle of one harness sees the same records.
    async fn store(&self) -> Arc<dyn LeaseStore>;
    /// Deletes a lease record directly, as an operator cleaning up the table would.
    async fn delete_record(&self, name: &LeaseName);
}

/// A short TTL for expiry cases: `wanted` where the store grants it, else the granted TTL
/// nearest to it (the store's shortest, for the TTLs asked here).
pub(crate) fn short_ttl(store: &dyn LeaseStore, wanted: Duration) -> Duration {
    store.capabilities().ttls.nearest(wanted)
}

/// Instantiates the lease conformance suite: one `#[tokio::test]` per case, each calling
/// `$harness` (an async expression yielding something that implements [`LeaseHarness`]).
#[macro_export]
macro_rules! lease_conformance {
    ($harness:expr) => {
        $crate::lease_conformance!(@cases $harness;
            acquire_grants_a_free_lease_and_refuses_a_held_one,
            tokens_rise_across_every_way_a_lease_changes_hands,
            stale_holder_cannot_renew_or_release,
            expiry_is_judged_on_the_store_clock,
            renew_extends_without_a_new_token,
            renew_all_renews_held_leases_and_reports_lost_ones,
            renew_all_renews_hundreds_of_leases_in_one_call,
            racing_contenders_get_exactly_one_grant,
            release_wakes_subscribers,
            history_pages_with_a_keyset_cursor,
            force_release_frees_a_held_lease,
            a_leader_change_records_when_the_previous_term_ended,
            invalid_input_changes_nothing,
        );
    };
    (@cases $harness:expr; $($case:ident,)*) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                let harness = $harness;
                $crate::conformance::lease::$case(&harness).await;
            }
        )*
    };
}

const TTL: Duration = Duration::from_secs(30);

fn acquire_params(name: &LeaseName, holder: &HolderId, ttl: Duration) -> AcquireParams {
    AcquireParams { name: name.clone(), holder: holder.clone(), ttl }
}

async fn acquire(store: &dyn LeaseStore, name: &LeaseName, holder: &HolderId) -> AcquireOutcome {
    store.acquire(acquire_params(name, holder, TTL)).await.expect("acquire")
}

fn granted(outcome: AcquireOutcome) -> (Lease, ChangeReason) {
    match outcome {
        AcquireOutcome::Acquired { lease, reason } => (lease, reason),
        other => panic!("expected the lease to be granted, got {other:?}"),
    }
}

fn release_params(lease: &Lease) -> ReleaseParams {
    ReleaseParams {
        name: lease.name.clone(),
        holder: lease.holder.clone().expect("held lease"),
        token: lease.token,
    }
}

/// A free lease is granted fresh and recorded; a held one is refused with its holder.
pub async fn acquire_grants_a_free_lease_and_refuses_a_held_one(h: &dyn LeaseHarness) {
    let store = h.store().await;
    let (name, a, b) = (unique_name("grant"), unique_holder("a"), unique_holder("b"));
    let (lease, reason) = granted(acquire(&*store, &name, &a).await);
    assert_eq!(reason, ChangeReason::Fresh);
    assert_eq!(lease.holder.as_ref(), Some(&a));
    assert!(lease.expires_at > lease.acquired_at);
    match acquire(&*store, &name, &b).await {
        AcquireOutcome::Held(current) => {
            assert_eq!(current.holder.as_ref(), Some(&a));
            assert_eq!(current.token, lease.token);
        }
        other => panic!("a held lease was granted again: {other:?}"),
    }
    let stored = store.get(&name).await.unwrap().expect("record exists");
    assert_eq!(stored.token, lease.token);
    assert!(store.list().await.unwrap().iter().any(|l| l.name == name));
}

/// Tokens strictly rise through release, forced release, expiry and deletion of the record.
pub async fn tokens_rise_across_every_way_a_lease_changes_hands(h: &dyn LeaseHarness) {
    let store = h.store().await;
    let name = unique_name("tokens");
    let mut tokens: Vec<FencingToken> = Vec::new();

    let (lease, _) = granted(acquire(&*store, &name, &unique_holder("a")).await);
    tokens.push(lease.token);
    assert!(store.release(release_params(&lease)).await.unwrap());

    let (lease, reason) = granted(acquire(&*store, &name, &unique_holder("b")).await);
    assert_eq!(reason, ChangeReason::Handover);
    tokens.push(lease.token);
    store.force_release(ForceReleaseParams { name: name.clone() }).await.unwrap();

    let (lease, reason) = granted(acquire(&*store, &name, &unique_holder("c")).await);
    assert_eq!(reason, ChangeReason::ForcedRelease);
    tokens.push(lease.token);
    h.delete_record(&name).await;
    assert_eq!(store.get(&name).await.unwrap(), None, "record deleted");

    let (lease, reason) = granted(acquire(&*store, &name, &unique_holder("d")).await);
    assert_eq!(reason, ChangeReason::Fresh);
    tokens.push(lease.token);

    let short = short_ttl(&*store, Duration::from_millis(200));
    let holder = unique_holder("e");
    store.release(release_params(&lease)).await.unwrap();
    let (expiring, _) =
        granted(store.acquire(acquire_params(&name, &holder, short)).await.unwrap());
    tokens.push(expiring.token);
    let (taken, reason) = acquire_when_free(&*store, &name, &unique_holder("f")).await;
    assert_eq!(reason, ChangeReason::ExpiredTakeover);
    tokens.push(taken.token);

    assert!(tokens.windows(2).all(|w| w[0] < w[1]), "tokens must strictly rise: {tokens:?}");
}

/// Retries until the lease is granted (it is expected to expire soon).
async fn acquire_when_free(
    store: &dyn LeaseStore,
    name: &LeaseName,
    holder: &HolderId,
) -> (Lease, ChangeReason) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        if let AcquireOutcome::Acquired { lease, reason } = acquire(store, name, holder).await {
            return (lease, reason);
        }
        assert!(tokio::time::Instant::now() < deadline, "lease {name} never became free");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// After a takeover, the former holder can neither renew nor release.
pub async fn stale_holder_cannot_renew_or_release(h: &dyn LeaseHarness) {
    let store = h.store().await;
    let (name, a, b) = (unique_name("stale"), unique_holder("a"), unique_holder("b"));
    let (old, _) = granted(
        store
            .acquire(acquire_params(&name, &a, short_ttl(&*store, Duration::from_millis(100))))
            .await
            .unwrap(),
    );
    let (new, _) = acquire_when_free(&*store, &name, &b).await;

    let renew = RenewParams { name: name.clone(), holder: a.clone(), token: old.token };
    let err = store.renew(renew).await.expect_err("stale renew must fail");
    assert_eq!(err.kind(), ErrorKind::LeaseLost);
    assert!(!store.release(release_params(&old)).await.unwrap(), "stale release must do nothing");
    let wrong_token = RenewParams { name: name.clone(), holder: b.clone(), token: old.token };
    assert_eq!(store.renew(wrong_token).await.unwrap_err().kind(), ErrorKind::LeaseLost);

    let stored = store.get(&name).await.unwrap().unwrap();
    assert_eq!(stored.holder.as_ref(), Some(&b));
    assert_eq!(stored.token, new.token);
}

/// A lease stays held until its expiry on the store's clock, and is free from then on.
pub async fn expiry_is_judged_on_the_store_clock(h: &dyn LeaseHarness) {
    let store = h.store().await;
    let (name, a, b) = (unique_name("expiry"), unique_holder("a"), unique_holder("b"));
    let ttl = short_ttl(&*store, Duration::from_millis(300));
    let (old, _) = granted(store.acquire(acquire_params(&name, &a, ttl)).await.unwrap());
    assert_eq!(old.expires_at, old.acquired_at.saturating_add(ttl));
    let (new, reason) = acquire_when_free(&*store, &name, &b).await;
    assert_eq!(reason, ChangeReason::ExpiredTakeover);
    assert!(
        new.acquired_at >= old.expires_at,
        "taken over at {} before the old lease expired at {}",
        new.acquired_at,
        old.expires_at
    );
}

/// Renewal moves the expiry forward by the TTL and keeps the token.
pub async fn renew_extends_without_a_new_token(h: &dyn LeaseHarness) {
    let store = h.store().await;
    let (name, a) = (unique_name("renew"), unique_holder("a"));
    let (lease, _) = granted(acquire(&*store, &name, &a).await);
    let renewed = store
        .renew(RenewParams { name: name.clone(), holder: a.clone(), token: lease.token })
        .await
        .unwrap();
    assert_eq!(renewed.token, lease.token);
    assert!(renewed.expires_at >= lease.expires_at);
    assert_eq!(renewed.expires_at, renewed.renewed_at.saturating_add(TTL));
    assert_eq!(renewed.acquired_at, lease.acquired_at);
}

/// One call renews every lease still held and names those that are not.
pub async fn renew_all_renews_held_leases_and_reports_lost_ones(h: &dyn LeaseHarness) {
    let store = h.store().await;
    let holder = unique_holder("node");
    let mut held = Vec::new();
    for i in 0..5 {
        let name = unique_name(&format!("all{i}"));
        let (lease, _) = granted(acquire(&*store, &name, &holder).await);
        held.push((name, lease.token));
    }
    let released =
        Lease { holder: Some(holder.clone()), ..store.get(&held[0].0).await.unwrap().unwrap() };
    store.release(release_params(&released)).await.unwrap();
    store.force_release(ForceReleaseParams { name: held[1].0.clone() }).await.unwrap();

    let outcome = store
        .renew_all(RenewAllParams { holder: holder.clone(), leases: held.clone() })
        .await
        .unwrap();
    let mut lost = outcome.lost.clone();
    lost.sort();
    let mut expected_lost = vec![held[0].0.clone(), held[1].0.clone()];
    expected_lost.sort();
    assert_eq!(lost, expected_lost);
    let mut renewed: Vec<_> = outcome.renewed.iter().map(|l| (l.name.clone(), l.token)).collect();
    renewed.sort();
    let mut expected: Vec<_> = held[2..].to_vec();
    expected.sort();
    assert_eq!(renewed, expected);

    let other = unique_holder("other");
    let outcome = store
        .renew_all(RenewAllParams { holder: other, leases: held[2..].to_vec() })
        .await
        .unwrap();
    assert!(outcome.renewed.is_empty(), "another holder must not renew these leases");
    assert_eq!(outcome.lost.len(), 3);
}

/// One call renews more leases than a store can check in one request (etcd's transactions
/// take 128 operations, SQL statements a bounded number of parameters), and still names a lost
/// one among them.
pub async fn renew_all_renews_hundreds_of_leases_in_one_call(h: &dyn LeaseHarness) {
    const LEASES: usize = 300;
    let store = h.store().await;
    let holder = unique_holder("many");
    let mut held = Vec::with_capacity(LEASES);
    for i in 0..LEASES {
        let name = unique_name(&format!("many{i}"));
        let (lease, _) = granted(acquire(&*store, &name, &holder).await);
        held.push((name, lease.token));
    }
    let lost = held[LEASES - 1].0.clone();
    store.force_release(ForceReleaseParams { name: lost.clone() }).await.unwrap();

    let outcome = store
        .renew_all(RenewAllParams { holder: holder.clone(), leases: held.clone() })
        .await
        .expect("renew every lease in one call");
    assert_eq!(outcome.lost, [lost]);
    let mut renewed: Vec<_> = outcome.renewed.iter().map(|l| (l.name.clone(), l.token)).collect();
    renewed.sort();
    let mut expected = held[..LEASES - 1].to_vec();
    expected.sort();
    assert_eq!(renewed, expected);
}

/// Many contenders racing for one free lease: exactly one is granted.
pub async fn racing_contenders_get_exactly_one_grant(h: &dyn LeaseHarness) {
    let name = unique_name("race");
    let mut tasks = Vec::new();
    for i in 0..16 {
        let store = h.store().await;
        let name = name.clone();
        tasks.push(tokio::spawn(async move {
            let holder = unique_holder(&format!("c{i}"));
            store.acquire(acquire_params(&name, &holder, TTL)).await
        }));
    }
    let mut grants = 0;
    for task in tasks {
        match task.await.unwrap() {
            Ok(AcquireOutcome::Acquired { .. }) => grants += 1,
            Ok(_) => {}
            Err(err) => assert_eq!(err.kind(), ErrorKind::Conflict, "unexpected error: {err}"),
        }
    }
    assert_eq!(grants, 1, "exactly one contender must win");
    let store = h.store().await;
    let page =
        store.history(HistoryParams { lease: Some(name), ..Default::default() }).await.unwrap();
    assert_eq!(page.items.len(), 1, "exactly one leader change recorded");
}

/// A graceful release of a lease that a contender was refused reaches subscribers (when the
/// backend can notify).
pub async fn release_wakes_subscribers(h: &dyn LeaseHarness) {
    let store = h.store().await;
    if !store.capabilities().change_notification {
        assert!(store.subscribe().await.unwrap().is_none());
        return;
    }
    let mut changes = store.subscribe().await.unwrap().expect("capability promises a feed");
    let name = unique_name("notify");
    let (lease, _) = granted(acquire(&*store, &name, &unique_holder("a")).await);
    let refused = acquire(&*store, &name, &unique_holder("b")).await;
    assert!(matches!(refused, AcquireOutcome::Held(_)), "a held lease is refused");
    assert!(store.release(release_params(&lease)).await.unwrap());
    let woken = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let changed = changes.next().await.expect("feed");
            if changed == name {
                return changed;
            }
        }
    })
    .await
    .expect("no notification within 10 s of the release");
    assert_eq!(woken, name);
}

/// The history lists every acquisition once, in order, page by page.
pub async fn history_pages_with_a_keyset_cursor(h: &dyn LeaseHarness) {
    let store = h.store().await;
    let name = unique_name("history");
    let mut expected = Vec::new();
    for i in 0..5 {
        let holder = unique_holder(&format!("h{i}"));
        let (lease, reason) = granted(acquire(&*store, &name, &holder).await);
        expected.push((holder, lease.token, reason));
        store.release(release_params(&lease)).await.unwrap();
    }
    let mut seen = Vec::new();
    let mut after = None;
    loop {
        let params = HistoryParams { lease: Some(name.clone()), after, limit: 2 };
        let page = store.history(params).await.unwrap();
        assert!(page.items.len() <= 2);
        seen.extend(page.items.into_iter().map(|c| (c.holder, c.token, c.reason)));
        match page.next {
            Some(cursor) => after = Some(cursor),
            None => break,
        }
    }
    assert_eq!(seen, expected);
    let err = store.history(HistoryParams { limit: 0, ..Default::default() }).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
}

/// A forced release frees a held lease and is a no-op on a free one.
pub async fn force_release_frees_a_held_lease(h: &dyn LeaseHarness) {
    let store = h.store().await;
    let (name, a) = (unique_name("force"), unique_holder("a"));
    assert_eq!(store.force_release(ForceReleaseParams { name: name.clone() }).await.unwrap(), None);
    let (lease, _) = granted(acquire(&*store, &name, &a).await);
    let previous = store.force_release(ForceReleaseParams { name: name.clone() }).await.unwrap();
    assert_eq!(previous.map(|l| l.token), Some(lease.token));
    let stored = store.get(&name).await.unwrap().unwrap();
    assert_eq!(stored.holder, None);
    let renew = RenewParams { name: name.clone(), holder: a, token: lease.token };
    assert_eq!(store.renew(renew).await.unwrap_err().kind(), ErrorKind::LeaseLost);
}

/// A TTL out of range is refused and creates no record.
pub async fn invalid_input_changes_nothing(h: &dyn LeaseHarness) {
    let store = h.store().await;
    let name = unique_name("invalid");
    for ttl in [Duration::ZERO, Duration::from_secs(31 * 24 * 3600)] {
        let err = store.acquire(acquire_params(&name, &unique_holder("a"), ttl)).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
    }
    assert_eq!(store.get(&name).await.unwrap(), None);
}
