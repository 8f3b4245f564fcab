//! What this process knows of the leases it asks for, so that the common calls are one
//! statement each:
//!
//! - the terms it acquired: a renewal's statement answers only its instant (`LAST_INSERT_ID`),
//!   and the rest of the renewed lease is what the acquisition wrote, which renewals keep;
//! - the leases it was refused: a contender's next attempt reads the lease first and is refused
//!   by that read while the lease is held, without a transaction.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use baton_core::{FencingToken, HolderId, Lease, LeaseName, StoreTime};

use crate::row::millis;

/// What this process last learned of one lease.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seen {
    /// It acquired the lease: what the acquisition wrote that renewals do not change.
    Acquired { holder: HolderId, token: FencingToken, acquired_at: StoreTime, ttl: Duration },
    /// Its latest attempt was refused.
    Refused,
}

/// What this process learned of each lease, shared by the store's clones.
#[derive(Debug, Clone, Default)]
pub(crate) struct Terms(Arc<Mutex<HashMap<LeaseName, Seen>>>);

impl Terms {
    fn seen(&self) -> std::sync::MutexGuard<'_, HashMap<LeaseName, Seen>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Remembers the term of `lease`, just granted or read held.
    pub(crate) fn acquired(&self, lease: &Lease) {
        let Some(holder) = lease.holder.clone().filter(|_| lease.released.is_none()) else {
            return self.forget(&lease.name);
        };
        let seen = Seen::Acquired {
            holder,
            token: lease.token,
            acquired_at: lease.acquired_at,
            // As the row keeps it: in whole milliseconds.
            ttl: Duration::from_millis(millis(lease.ttl).unsigned_abs()),
        };
        self.seen().insert(lease.name.clone(), seen);
    }

    /// Notes that an attempt at `name` was refused.
    pub(crate) fn refused(&self, name: &LeaseName) {
        self.seen().insert(name.clone(), Seen::Refused);
    }

    /// Whether the latest attempt at `name` was refused.
    pub(crate) fn was_refused(&self, name: &LeaseName) -> bool {
        self.seen().get(name) == Some(&Seen::Refused)
    }

    /// Forgets what was learned of `name`.
    pub(crate) fn forget(&self, name: &LeaseName) {
        self.seen().remove(name);
    }

    /// The lease `name` as a renewal at `renewed_at` left it, if its term under `token` for
    /// `holder` is the one this process acquired.
    pub(crate) fn renewed(
        &self,
        name: &LeaseName,
        holder: &HolderId,
        token: FencingToken,
        renewed_at: StoreTime,
    ) -> Option<Lease> {
        let seen = self.seen();
        let Some(Seen::Acquired { holder: ours, token: acquired, acquired_at, ttl }) =
            seen.get(name)
        else {
            return None;
        };
        (ours == holder && *acquired == token).then(|| Lease {
            name: name.clone(),
            holder: Some(holder.clone()),
            token,
            acquired_at: *acquired_at,
            renewed_at,
            expires_at: renewed_at.saturating_add(*ttl),
            ttl: *ttl,
            released: None,
        })
    }
}
