//! Pure lease transitions with the store's time passed in.
//!
//! The in-memory and SQLite backends apply these functions inside one serialized transaction;
//! backends that decide in a single statement (PostgreSQL) implement the same rules in SQL, and
//! the conformance suite holds both to them.

use std::time::Duration;

use super::{
    AcquireParams, ChangeReason, FencingToken, Lease, ReleaseKind, ReleaseParams, RenewParams,
};
use crate::error::{Error, Result};
use crate::time::StoreTime;

/// The shortest TTL accepted.
pub const MIN_TTL: Duration = Duration::from_millis(10);
/// The longest TTL accepted.
pub const MAX_TTL: Duration = Duration::from_secs(30 * 24 * 3600);

/// Rejects a TTL outside [`MIN_TTL`]..=[`MAX_TTL`].
pub fn check_ttl(ttl: Duration) -> Result<Duration> {
    if ttl < MIN_TTL || ttl > MAX_TTL {
        return Err(Error::invalid_input(format!("invalid TTL {ttl:?}: expected 10ms to 30 days")));
    }
    Ok(ttl)
}

/// The result of deciding an acquisition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AcquireDecision {
    /// Grant the lease: store this record and record a leader change with this reason.
    Grant {
        /// The record to store.
        lease: Lease,
        /// Why the lease was free.
        reason: ChangeReason,
        /// When the previous term ended ([`Lease::term_end`]); `None` for a fresh lease.
        previous_end: Option<StoreTime>,
    },
    /// Refuse: the current record shows a live holder.
    Held,
}

/// Decides an acquisition at store time `now`.
///
/// `next_token` must be greater than every token ever issued for this name; the store draws it
/// from a counter that survives deletion of the record.
pub fn acquire(
    current: Option<&Lease>,
    params: &AcquireParams,
    now: StoreTime,
    next_token: FencingToken,
) -> AcquireDecision {
    let reason = match current {
        None => ChangeReason::Fresh,
        Some(lease) if lease.holder_at(now).is_some() => return AcquireDecision::Held,
        Some(lease) => match lease.released {
            Some(ReleaseKind::Forced) => ChangeReason::ForcedRelease,
            Some(ReleaseKind::Graceful) => ChangeReason::Handover,
            None => ChangeReason::ExpiredTakeover,
        },
    };
    AcquireDecision::Grant {
        lease: Lease {
            name: params.name.clone(),
            holder: Some(params.holder.clone()),
            token: next_token,
            acquired_at: now,
            renewed_at: now,
            expires_at: now.saturating_add(params.ttl),
            ttl: params.ttl,
            released: None,
        },
        reason,
        previous_end: current.map(Lease::term_end),
    }
}

/// Whether `lease` is held at `now` by the holder and token of a renew or release request.
fn held_by(lease: &Lease, holder: &super::HolderId, token: FencingToken, now: StoreTime) -> bool {
    lease.holder_at(now) == Some(holder) && lease.token == token
}

/// Decides a renewal: the extended record, or `LeaseLost`.
pub fn renew(current: Option<&Lease>, params: &RenewParams, now: StoreTime) -> Result<Lease> {
    match current {
        Some(lease) if held_by(lease, &params.holder, params.token, now) => Ok(Lease {
            renewed_at: now,
            expires_at: now.saturating_add(lease.ttl),
            ..lease.clone()
        }),
        _ => Err(Error::lease_lost(format!(
            "lease {} is no longer held by {} under token {}",
            params.name, params.holder, params.token
        ))),
    }
}

/// Decides a graceful release: the released record, or `None` if the caller no longer holds it.
pub fn release(current: Option<&Lease>, params: &ReleaseParams, now: StoreTime) -> Option<Lease> {
    current.filter(|lease| held_by(lease, &params.holder, params.token, now)).map(|lease| Lease {
        holder: None,
        expires_at: now,
        released: Some(ReleaseKind::Graceful),
        ..lease.clone()
    })
}

/// Decides a forced release: the released record, or `None` if nobody holds the lease.
pub fn force_release(current: Option<&Lease>, now: StoreTime) -> Option<Lease> {
    current.filter(|lease| lease.holder_at(now).is_some()).map(|lease| Lease {
        holder: None,
        expires_at: now,
        released: Some(ReleaseKind::Forced),
        ..lease.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lease::{HolderId, LeaseName};

    fn params(holder: &str) -> AcquireParams {
        AcquireParams {
            name: LeaseName::new("job").unwrap(),
            holder: HolderId::new(holder).unwrap(),
            ttl: Duration::from_secs(10),
        }
    }

    fn t(ms: i64) -> StoreTime {
        StoreTime::from_millis(ms)
    }

    fn token(v: u64) -> FencingToken {
        FencingToken::new(v).unwrap()
    }

    fn granted(decision: AcquireDecision) -> (Lease, ChangeReason) {
        match decision {
            AcquireDecision::Grant { lease, reason, .. } => (lease, reason),
            AcquireDecision::Held => panic!("expected a grant"),
        }
    }

    #[test]
    fn fresh_lease_is_granted_with_expiry_on_store_time() {
        let (lease, reason) = granted(acquire(None, &params("a"), t(1_000), token(1)));
        assert_eq!(reason, ChangeReason::Fresh);
        assert_eq!(lease.expires_at, t(11_000));
        assert_eq!(lease.token, token(1));
    }

    #[test]
    fn live_lease_is_held_until_the_instant_it_expires() {
        let (lease, _) = granted(acquire(None, &params("a"), t(0), token(1)));
        assert_eq!(acquire(Some(&lease), &params("b"), t(9_999), token(2)), AcquireDecision::Held);
        let (next, reason) = granted(acquire(Some(&lease), &params("b"), t(10_000), token(2)));
        assert_eq!(reason, ChangeReason::ExpiredTakeover);
        assert_eq!(next.holder, Some(HolderId::new("b").unwrap()));
    }

    #[test]
    fn a_grant_carries_when_the_previous_term_ended() {
        let first = acquire(None, &params("a"), t(0), token(1));
        let AcquireDecision::Grant { lease, previous_end: None, .. } = first else {
            panic!("a fresh grant has no previous term: {first:?}")
        };
        let (name, holder) = (lease.name.clone(), HolderId::new("a").unwrap());
        let renewal = RenewParams { name: name.clone(), holder: holder.clone(), token: token(1) };
        let renewed = renew(Some(&lease), &renewal, t(4_000)).unwrap();
        let taken = acquire(Some(&renewed), &params("b"), t(14_500), token(2));
        let AcquireDecision::Grant { previous_end, .. } = taken else { panic!("{taken:?}") };
        assert_eq!(previous_end, Some(t(4_000)), "an expired term ended at its last renewal");

        let released =
            release(Some(&renewed), &ReleaseParams { name, holder, token: token(1) }, t(6_000));
        let released = released.unwrap();
        let handed = acquire(Some(&released), &params("b"), t(6_040), token(2));
        let AcquireDecision::Grant { previous_end, .. } = handed else { panic!("{handed:?}") };
        assert_eq!(previous_end, Some(t(6_000)), "a released term ended at its release");
    }

    #[test]
    fn release_kind_decides_the_next_reason() {
        let (lease, _) = granted(acquire(None, &params("a"), t(0), token(1)));
        let release_params = ReleaseParams {
            name: lease.name.clone(),
            holder: HolderId::new("a").unwrap(),
            token: token(1),
        };
        let released = release(Some(&lease), &release_params, t(5)).unwrap();
        let (_, reason) = granted(acquire(Some(&released), &params("b"), t(6), token(2)));
        assert_eq!(reason, ChangeReason::Handover);

        let forced = force_release(Some(&lease), t(5)).unwrap();
        let (_, reason) = granted(acquire(Some(&forced), &params("b"), t(6), token(2)));
        assert_eq!(reason, ChangeReason::ForcedRelease);
    }

    #[test]
    fn stale_holder_can_neither_renew_nor_release() {
        let (lease, _) = granted(acquire(None, &params("a"), t(0), token(1)));
        let (taken, _) = granted(acquire(Some(&lease), &params("b"), t(20_000), token(2)));
        let stale = RenewParams {
            name: lease.name.clone(),
            holder: HolderId::new("a").unwrap(),
            token: token(1),
        };
        assert_eq!(
            renew(Some(&taken), &stale, t(20_001)).unwrap_err().kind(),
            crate::ErrorKind::LeaseLost
        );
        let stale_release = ReleaseParams {
            name: stale.name.clone(),
            holder: stale.holder.clone(),
            token: stale.token,
        };
        assert_eq!(release(Some(&taken), &stale_release, t(20_001)), None);
    }

    #[test]
    fn an_expired_lease_cannot_be_renewed() {
        let (lease, _) = granted(acquire(None, &params("a"), t(0), token(1)));
        let renew_params = RenewParams {
            name: lease.name.clone(),
            holder: HolderId::new("a").unwrap(),
            token: token(1),
        };
        assert!(renew(Some(&lease), &renew_params, t(9_000)).is_ok());
        assert!(renew(Some(&lease), &renew_params, t(10_000)).is_err());
    }

    #[test]
    fn ttl_bounds_are_enforced() {
        assert!(check_ttl(Duration::from_millis(9)).is_err());
        assert!(check_ttl(Duration::from_secs(10)).is_ok());
        assert!(check_ttl(MAX_TTL + Duration::from_secs(1)).is_err());
    }
}
