//! Conversions between stored rows and core records.

use std::time::Duration;

use baton_core::{
    ChangeReason, FencingToken, HolderId, LeaderChange, Lease, LeaseName, ReleaseKind, Result,
    StoreTime,
};

use crate::error::corrupt;

/// A `baton_leases` row as stored.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct LeaseRow {
    name: String,
    holder: Option<String>,
    token: i64,
    acquired_at: i64,
    renewed_at: i64,
    expires_at: i64,
    ttl_ms: i64,
    released: Option<String>,
}

impl LeaseRow {
    /// The core record this row holds.
    pub(crate) fn into_lease(self) -> Result<Lease> {
        let ttl_ms = u64::try_from(self.ttl_ms).map_err(|_| corrupt("TTL", self.ttl_ms))?;
        Ok(Lease {
            name: LeaseName::new(&self.name).map_err(|_| corrupt("lease name", &self.name))?,
            holder: self
                .holder
                .map(|holder| HolderId::new(&holder).map_err(|_| corrupt("holder", holder)))
                .transpose()?,
            token: FencingToken::from_store(self.token)
                .map_err(|_| corrupt("token", self.token))?,
            acquired_at: StoreTime::from_millis(self.acquired_at),
            renewed_at: StoreTime::from_millis(self.renewed_at),
            expires_at: StoreTime::from_millis(self.expires_at),
            ttl: Duration::from_millis(ttl_ms),
            released: self
                .released
                .map(|kind| ReleaseKind::parse(&kind).ok_or_else(|| corrupt("release kind", kind)))
                .transpose()?,
        })
    }
}

/// The TTL as stored, in whole milliseconds.
pub(crate) fn ttl_millis(ttl: Duration) -> i64 {
    i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX)
}

/// A `baton_leader_changes` row as stored.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct LeaderChangeRow {
    id: i64,
    lease: String,
    holder: String,
    token: i64,
    at: i64,
    reason: String,
    previous_end: Option<i64>,
}

impl LeaderChangeRow {
    /// The core record this row holds.
    pub(crate) fn into_change(self) -> Result<LeaderChange> {
        Ok(LeaderChange {
            id: self.id,
            lease: LeaseName::new(&self.lease).map_err(|_| corrupt("lease name", &self.lease))?,
            holder: HolderId::new(&self.holder).map_err(|_| corrupt("holder", &self.holder))?,
            token: FencingToken::from_store(self.token)
                .map_err(|_| corrupt("token", self.token))?,
            at: StoreTime::from_millis(self.at),
            reason: ChangeReason::parse(&self.reason)
                .ok_or_else(|| corrupt("change reason", &self.reason))?,
            previous_end: self.previous_end.map(StoreTime::from_millis),
        })
    }
}
