//! The failover a leader change records: when the previous term ended, on the store's clock.

use std::time::Duration;

use baton_core::{
    AcquireOutcome, AcquireParams, ChangeReason, HistoryParams, LeaderChange, Lease, LeaseName,
    LeaseStore, ReleaseParams, RenewParams,
};

use super::lease::LeaseHarness;
use super::{unique_holder, unique_name};

/// Each leader change stores the end of the term it replaced: none for a fresh lease, the
/// previous holder's last renewal after an expiry, the release after a handover; its failover
/// runs from there to the new term's start.
pub async fn a_leader_change_records_when_the_previous_term_ended(h: &dyn LeaseHarness) {
    let store = h.store().await;
    let name = unique_name("failover");
    let ttl = super::lease::short_ttl(&*store, Duration::from_millis(300));
    let first = grant(&*store, &name, ttl).await.expect("a free lease is granted");
    assert_eq!(latest(&*store, &name).await.previous_end, None, "a fresh lease");

    let holder = first.holder.clone().expect("held");
    let renewal = RenewParams { name: name.clone(), holder, token: first.token };
    let renewed = store.renew(renewal).await.expect("renew");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let taken = loop {
        if let Some(lease) = grant(&*store, &name, ttl).await {
            break lease;
        }
        assert!(tokio::time::Instant::now() < deadline, "lease {name} never expired");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let change = latest(&*store, &name).await;
    assert_eq!(change.reason, ChangeReason::ExpiredTakeover);
    assert_eq!(change.previous_end, Some(renewed.renewed_at), "the last renewal");
    assert_eq!(change.failover(), Some(taken.acquired_at.saturating_since(renewed.renewed_at)));
    assert!(change.failover().unwrap() >= ttl, "{change:?}");

    let holder = taken.holder.clone().expect("held");
    let release = ReleaseParams { name: name.clone(), holder, token: taken.token };
    assert!(store.release(release).await.expect("release"));
    let released_at = store.get(&name).await.expect("get").expect("a record").expires_at;
    let handed = grant(&*store, &name, ttl).await.expect("a released lease is granted");
    let change = latest(&*store, &name).await;
    assert_eq!(change.reason, ChangeReason::Handover);
    assert_eq!(change.previous_end, Some(released_at), "the release");
    assert_eq!(change.failover(), Some(handed.acquired_at.saturating_since(released_at)));
}

/// Acquires `name` for a new holder; `None` while someone holds it.
async fn grant(store: &dyn LeaseStore, name: &LeaseName, ttl: Duration) -> Option<Lease> {
    let params = AcquireParams { name: name.clone(), holder: unique_holder("h"), ttl };
    match store.acquire(params).await.expect("acquire") {
        AcquireOutcome::Acquired { lease, .. } => Some(lease),
        _ => None,
    }
}

/// The latest leader change of `name`.
async fn latest(store: &dyn LeaseStore, name: &LeaseName) -> LeaderChange {
    let params = HistoryParams { lease: Some(name.clone()), after: None, limit: 1000 };
    let page = store.history(params).await.expect("history");
    page.items.into_iter().last().expect("a leader change")
}
