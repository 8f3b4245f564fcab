//! Leader-change history (invariant I8): one record per acquisition.

use std::time::Duration;

use super::{FencingToken, HolderId, LeaseName};
use crate::page::Cursor;
use crate::time::StoreTime;

/// Why a holder acquired a lease.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ChangeReason {
    /// The lease had never been held.
    Fresh,
    /// The previous holder stopped renewing and the lease expired.
    ExpiredTakeover,
    /// The previous holder released the lease gracefully.
    Handover,
    /// An operator released the previous holder's lease by force.
    ForcedRelease,
}

impl ChangeReason {
    /// The name stored and printed for this reason.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeReason::Fresh => "fresh",
            ChangeReason::ExpiredTakeover => "expired_takeover",
            ChangeReason::Handover => "handover",
            ChangeReason::ForcedRelease => "forced_release",
        }
    }

    /// Parses a stored name.
    pub fn parse(text: &str) -> Option<Self> {
        [Self::Fresh, Self::ExpiredTakeover, Self::Handover, Self::ForcedRelease]
            .into_iter()
            .find(|reason| reason.as_str() == text)
    }
}

impl std::fmt::Display for ChangeReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// One leader term's start: who acquired which lease, with which token, when and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaderChange {
    /// Position in the history; increases with every record.
    pub id: i64,
    /// The lease acquired.
    pub lease: LeaseName,
    /// The new holder.
    pub holder: HolderId,
    /// The token issued.
    pub token: FencingToken,
    /// When, on the store's clock.
    pub at: StoreTime,
    /// Why the lease was free.
    pub reason: ChangeReason,
    /// When the previous term ended, on the store's clock (see [`Lease::term_end`](super::Lease::term_end)); `None`
    /// for a fresh lease, and for a change recorded before stores kept it.
    pub previous_end: Option<StoreTime>,
}

impl LeaderChange {
    /// How long the lease went without a live holder before this term: from the end of the
    /// previous term to this term's start, both on the store's clock. `None` for a fresh lease.
    pub fn failover(&self) -> Option<Duration> {
        self.previous_end.map(|end| self.at.saturating_since(end))
    }
}

/// Which part of the leader-change history to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryParams {
    /// Only this lease, or every lease.
    pub lease: Option<LeaseName>,
    /// Start after this position (keyset pagination).
    pub after: Option<Cursor>,
    /// At most this many records (1 to 1000).
    pub limit: u32,
}

impl Default for HistoryParams {
    fn default() -> Self {
        HistoryParams { lease: None, after: None, limit: 100 }
    }
}
