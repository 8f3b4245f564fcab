//! Conformance suites: one per backend trait, run against every backend and the in-memory
//! reference.
//!
//! A backend's test file instantiates a suite with a macro, for example
//! `baton_testkit::lease_conformance!(harness());`, which expands to one `#[tokio::test]` per
//! case so that each case passes or fails on its own.

pub mod actions;
pub mod cluster;
pub mod jobs;
pub mod lease;
mod lease_failover;

/// A lease name unique to this run, so cases can share one database.
pub fn unique_name(prefix: &str) -> baton_core::LeaseName {
    let name = format!("{prefix}-{:016x}", fastrand::u64(..));
    baton_core::LeaseName::new(name).expect("valid generated name")
}

/// A holder id unique to this run.
pub fn unique_holder(prefix: &str) -> baton_core::HolderId {
    baton_core::HolderId::new(format!("{prefix}-{:016x}", fastrand::u64(..))).expect("valid holder")
}

/// Acquires `name` for `holder` with `ttl`; panics unless it is granted.
pub async fn acquire_granted(
    store: &dyn baton_core::LeaseStore,
    name: &baton_core::LeaseName,
    holder: &baton_core::HolderId,
    ttl: std::time::Duration,
) -> (baton_core::Lease, baton_core::ChangeReason) {
    let params = baton_core::AcquireParams { name: name.clone(), holder: holder.clone(), ttl };
    match store.acquire(params).await.expect("acquire") {
        baton_core::AcquireOutcome::Acquired { lease, reason } => (lease, reason),
        other => panic!("expected lease {name} to be granted, got {other:?}"),
    }
}

/// Asserts that `result` failed with `kind`; `what` names the call in the message.
pub(crate) fn assert_kind(
    result: Result<impl std::fmt::Debug, baton_core::Error>,
    kind: baton_core::ErrorKind,
    what: &str,
) {
    match result {
        Err(err) => assert_eq!(err.kind(), kind, "{what}: {err}"),
        Ok(value) => panic!("{what} must fail with {kind}, got {value:?}"),
    }
}
