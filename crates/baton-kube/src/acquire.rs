//! Acquiring a lease: judge the record (free, released, or unchanged for its duration in this
//! process's sight), reserve a token, then write the new term under the record's
//! `resourceVersion`, so that of two contenders that read the same version one wins.

use std::time::Duration;

use baton_core::lease::TermRecord;
use baton_core::lease::transition::MAX_TTL;
use baton_core::{
    AcquireOutcome, AcquireParams, ChangeReason, Error, ErrorKind, LeaseName, ReleaseKind, Result,
    TtlRange,
};
use tokio::time::Instant;

use crate::client::Failure;
use crate::reads::read;
use crate::record::{self, Grant, Record};
use crate::store::Inner;
use crate::terms::Term;
use crate::{events, names};

/// The TTLs granted: whole seconds, as `leaseDurationSeconds` holds them, up to baton's longest.
pub(crate) const TTLS: TtlRange = TtlRange::in_whole_seconds(Duration::from_secs(1), MAX_TTL);

/// Checks a TTL: whole seconds, as `leaseDurationSeconds` holds it.
fn ttl_seconds(ttl: Duration) -> Result<i32> {
    match TTLS.grants(ttl) {
        true => Ok(i32::try_from(ttl.as_secs()).unwrap_or(i32::MAX)),
        false => Err(Error::invalid_input(format!(
            "invalid TTL {ttl:?} for a Kubernetes lease: leaseDurationSeconds holds whole seconds (1s to 30 days)"
        ))),
    }
}

/// Acquires `params.name` if its record is free, released, or unchanged for its duration
/// since this process first saw it.
pub(crate) async fn acquire(inner: &Inner, params: AcquireParams) -> Result<AcquireOutcome> {
    let name = names::object_name(&params.name)?;
    let ttl_seconds = ttl_seconds(params.ttl)?;
    let current = read(inner, name).await?;
    let (reason, previous_end) = match &current {
        None => (ChangeReason::Fresh, None),
        Some(record) if record.holder.is_some() => {
            let unchanged = inner.sightings.unchanged_for(name, record.version());
            if unchanged < record.duration {
                return Ok(AcquireOutcome::Held(seen_as_held(
                    record,
                    &params.name,
                    record.duration - unchanged,
                )?));
            }
            (ChangeReason::ExpiredTakeover, Some(record.renewed_at))
        }
        Some(record) => match record.released {
            Some(ReleaseKind::Forced) => (ChangeReason::ForcedRelease, Some(record.renewed_at)),
            _ => (ChangeReason::Handover, Some(record.renewed_at)),
        },
    };
    let token =
        inner.tokens.reserve(&inner.kube, current.as_ref().and_then(|record| record.token)).await?;
    let grant = Grant {
        name,
        namespace: &inner.kube.namespace,
        holder: &params.holder,
        token,
        ttl_seconds,
        now: record::now(),
        reason,
        previous_end,
    };
    let object = record::granted(current.as_ref(), &grant)?;
    let sent = Instant::now();
    let written = match &current {
        Some(_) => inner.kube.replace(name, &object).await,
        None => inner.kube.create(&object).await,
    };
    let record = match written {
        Ok(written) => Record::read(written)?,
        Err(Failure::Conflict) => return lost_race(inner, &params.name).await,
        Err(Failure::NotFound(message)) => {
            return Err(not_found(inner, &params.name, current.is_some(), &message));
        }
        Err(Failure::Refused(err)) => return Err(err),
        Err(Failure::Unknown(err)) => {
            // The write may have been applied: the record says, never a second write.
            match read(inner, name).await? {
                Some(record) if record.held_by(&params.holder, token) => record,
                Some(record) if Some(record.version()) != current.as_ref().map(Record::version) => {
                    return lost_race(inner, &params.name).await;
                }
                _ => return Err(err),
            }
        }
    };
    inner.terms.remember(name, Term { record: record.clone(), sent });
    events::leader_change(inner, &record, &params.holder, true);
    Ok(AcquireOutcome::Acquired { lease: record.lease(&params.name)?, reason })
}

/// The record of a lease held by someone else as this contender judges it: held until its
/// duration has passed unchanged in this process's sight, `remaining` from now.
fn seen_as_held(
    record: &Record,
    name: &LeaseName,
    remaining: Duration,
) -> Result<baton_core::Lease> {
    let lease = record.lease(name)?;
    Ok(baton_core::Lease { expires_at: record::now().saturating_add(remaining), ..lease })
}

/// Another contender's write came first: the lease as it is now, or a conflict if it is free
/// again already.
async fn lost_race(inner: &Inner, name: &LeaseName) -> Result<AcquireOutcome> {
    let object_name = name.as_str();
    match read(inner, object_name).await? {
        Some(record) if record.holder.is_some() => {
            let unchanged = inner.sightings.unchanged_for(object_name, record.version());
            let remaining = record.duration.saturating_sub(unchanged);
            Ok(AcquireOutcome::Held(seen_as_held(&record, name, remaining)?))
        }
        _ => Err(Error::new(
            ErrorKind::Conflict,
            format!("lease {name} changed hands while it was acquired; try again"),
        )),
    }
}

/// A 404 on a write: the namespace is missing (on a create), or the object was deleted since
/// it was read (on a replace).
fn not_found(inner: &Inner, name: &LeaseName, replaced: bool, message: &str) -> Error {
    match replaced {
        true => Error::new(
            ErrorKind::Conflict,
            format!("lease {name} was deleted while it was acquired; try again"),
        ),
        false => Error::invalid_input(format!(
            "cannot create lease {name} in namespace {}: {message}",
            inner.kube.namespace
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttls_are_whole_seconds() {
        assert_eq!(ttl_seconds(Duration::from_secs(15)).unwrap(), 15);
        let refused = [Duration::from_millis(1500), Duration::from_millis(300), Duration::ZERO];
        for ttl in refused.into_iter().chain([MAX_TTL + Duration::from_secs(1)]) {
            let err = ttl_seconds(ttl).expect_err("refused");
            assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        }
    }
}
