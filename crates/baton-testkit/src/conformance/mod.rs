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
