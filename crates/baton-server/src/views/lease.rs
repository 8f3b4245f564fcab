//! Leases and their leader-change history.

use baton::{LeaderChange, Lease, StoreTime};
use serde::Serialize;

use super::{instant, millis};

/// A lease record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LeaseView {
    /// The lease name.
    pub name: String,
    /// `held`, `expired`, `graceful`, `forced` or `free`, judged on the store's clock; `None`
    /// when the view was built without reading the store's clock.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<&'static str>,
    /// The holder of the latest acquisition, `None` once released.
    pub holder: Option<String>,
    /// The fencing token of the latest acquisition.
    pub token: u64,
    /// When the latest acquisition happened.
    pub acquired_at: String,
    /// When the holder last renewed.
    pub renewed_at: String,
    /// When the lease lapses unless renewed.
    pub expires_at: String,
    /// The time to live each renewal extends the lease by, in milliseconds.
    pub ttl_ms: u64,
    /// `graceful` or `forced` when the lease was released.
    pub released: Option<&'static str>,
}

impl LeaseView {
    /// The view with its state judged at store time `now`.
    pub fn at(lease: &Lease, now: StoreTime) -> Self {
        LeaseView { state: Some(lease.state_at(now)), ..LeaseView::from(lease) }
    }
}

impl From<&Lease> for LeaseView {
    fn from(lease: &Lease) -> Self {
        LeaseView {
            name: lease.name.to_string(),
            state: None,
            holder: lease.holder.as_ref().map(ToString::to_string),
            token: lease.token.get(),
            acquired_at: instant(lease.acquired_at),
            renewed_at: instant(lease.renewed_at),
            expires_at: instant(lease.expires_at),
            ttl_ms: millis(lease.ttl),
            released: lease.released.map(|kind| kind.as_str()),
        }
    }
}

/// The start of one leader term.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LeaderChangeView {
    /// Position in the history.
    pub id: i64,
    /// The lease acquired.
    pub lease: String,
    /// The new holder.
    pub holder: String,
    /// The token issued.
    pub token: u64,
    /// When, on the store's clock.
    pub at: String,
    /// `fresh`, `expired_takeover`, `handover` or `forced_release`.
    pub reason: &'static str,
    /// When the previous term ended on the store's clock (its last renewal, or its release);
    /// `None` for a fresh lease and for a change recorded before stores kept it.
    pub previous_end: Option<String>,
    /// How long the lease had no live holder before this term, in milliseconds: `at` minus
    /// `previous_end`.
    pub failover_ms: Option<u64>,
}

impl From<&LeaderChange> for LeaderChangeView {
    fn from(change: &LeaderChange) -> Self {
        LeaderChangeView {
            id: change.id,
            lease: change.lease.to_string(),
            holder: change.holder.to_string(),
            token: change.token.get(),
            at: instant(change.at),
            reason: change.reason.as_str(),
            previous_end: change.previous_end.map(instant),
            failover_ms: change.failover().map(millis),
        }
    }
}
