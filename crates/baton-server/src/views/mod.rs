//! Serializable views of baton's records, shared by the HTTP API and the command line's
//! `--output json`.
//!
//! Every view is a plain [`serde::Serialize`] struct built from a record with `From`, with
//! instants as RFC 3339 strings (UTC, milliseconds) and states, reasons and statuses as their
//! stable `as_str()` names. Nothing here depends on the HTTP layer.

mod action;
mod audit;
mod batch;
mod execution;
mod job;
mod lease;
mod node;
mod page;

pub use action::ActionView;
pub use audit::{AuditView, FindingView};
pub use batch::{BatchDetailView, BatchView, MoveView, PartitionView};
pub use execution::ExecutionView;
pub use job::{JobView, PolicyView};
pub use lease::{LeaderChangeView, LeaseView};
pub use node::{NodeChangeView, NodeView};
pub use page::PageView;

use baton::StoreTime;

/// An instant as RFC 3339 in UTC with milliseconds, such as `2026-11-21T10:00:00.000Z`.
pub(crate) fn instant(at: StoreTime) -> String {
    at.to_string()
}

/// An optional instant as RFC 3339, or `None`.
pub(crate) fn maybe_instant(at: Option<StoreTime>) -> Option<String> {
    at.map(instant)
}

/// A duration in whole milliseconds.
pub(crate) fn millis(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
