//! The lease record as a store keeps it.

use std::time::Duration;

use super::{FencingToken, HolderId, LeaseName};
use crate::time::StoreTime;

/// How a lease came to be free before its expiry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ReleaseKind {
    /// The holder released it (graceful shutdown or end of work).
    Graceful,
    /// An operator released it by force.
    Forced,
}

impl ReleaseKind {
    /// The name stored and printed for this kind.
    pub fn as_str(self) -> &'static str {
        match self {
            ReleaseKind::Graceful => "graceful",
            ReleaseKind::Forced => "forced",
        }
    }

    /// Parses a stored name.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "graceful" => Some(ReleaseKind::Graceful),
            "forced" => Some(ReleaseKind::Forced),
            _ => None,
        }
    }
}

/// A lease record. The record outlives its holders: releasing a lease clears the holder but
/// keeps the last token, so the next acquisition can only go up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// The lease name.
    pub name: LeaseName,
    /// The current holder, or `None` once released.
    pub holder: Option<HolderId>,
    /// The token of the latest acquisition.
    pub token: FencingToken,
    /// When the latest acquisition happened, on the store's clock.
    pub acquired_at: StoreTime,
    /// When the holder last renewed, on the store's clock.
    pub renewed_at: StoreTime,
    /// When the lease lapses unless renewed, on the store's clock.
    pub expires_at: StoreTime,
    /// The time to live each renewal extends the lease by.
    pub ttl: Duration,
    /// How the lease was released, if it was.
    pub released: Option<ReleaseKind>,
}

impl Lease {
    /// The holder at store time `now`: `None` if the lease was released or has expired.
    pub fn holder_at(&self, now: StoreTime) -> Option<&HolderId> {
        self.holder.as_ref().filter(|_| self.expires_at > now)
    }

    /// When this term ended as the leader-change history records it: the release (which sets
    /// the expiry to its instant) when the lease was released, otherwise the holder's last
    /// renewal, its last proof of life before the lease expired.
    pub fn term_end(&self) -> StoreTime {
        match self.released {
            Some(_) => self.expires_at,
            None => self.renewed_at,
        }
    }

    /// A one-word description of the lease's state at store time `now`.
    pub fn state_at(&self, now: StoreTime) -> &'static str {
        match (&self.holder, self.released) {
            (Some(_), _) if self.expires_at > now => "held",
            (Some(_), _) => "expired",
            (None, Some(kind)) => kind.as_str(),
            (None, None) => "free",
        }
    }
}
