//! Renewing and releasing a term: one write under the `resourceVersion` this store last wrote
//! (or read, for a term it does not remember), so that a term taken over meanwhile is never
//! extended or cleared.

use std::time::Duration;

use baton_core::lease::TermRecord;
use baton_core::lease::renew_each;
use baton_core::{
    Error, ErrorKind, FencingToken, ForceReleaseParams, HolderId, Lease, ReleaseKind,
    ReleaseParams, RenewAllOutcome, RenewAllParams, RenewParams, Result,
};
use tokio::time::Instant;

use crate::client::Failure;
use crate::reads::read;
use crate::record::{self, Record};
use crate::store::Inner;
use crate::terms::Term;
use crate::{events, names};

/// Writes attempted when the object changed under a term that is still the caller's (someone
/// else annotated or labelled it).
const ATTEMPTS: usize = 3;

fn lost(name: &str, holder: &HolderId, token: FencingToken) -> Error {
    Error::lease_lost(format!("lease {name} is no longer held by {holder} under token {token}"))
}

/// The record of the caller's term and the term's own duration: as this store last wrote it
/// (unless the duration has passed since that write was sent), or as read (unless this process
/// has seen that version unchanged for its duration, as a contender would judge it).
async fn current_term(
    inner: &Inner,
    name: &str,
    holder: &HolderId,
    token: FencingToken,
) -> Result<Option<(Record, Duration)>> {
    if let Some(term) = inner.terms.get(name).filter(|term| term.of(holder, token)) {
        let duration = term.record.duration;
        return Ok((!term.lapsed()).then_some((term.record, duration)));
    }
    let Some(record) = read(inner, name).await?.filter(|record| record.held_by(holder, token))
    else {
        return Ok(None);
    };
    let unchanged = inner.sightings.unchanged_for(name, record.version());
    let duration = record.duration;
    Ok((unchanged < duration).then_some((record, duration)))
}

/// Renews one term.
pub(crate) async fn renew(inner: &Inner, params: RenewParams) -> Result<Lease> {
    let name = names::object_name(&params.name)?;
    let (holder, token) = (&params.holder, params.token);
    let Some((base, duration)) = current_term(inner, name, holder, token).await? else {
        inner.terms.forget_if(name, |term| term.of(holder, token));
        return Err(lost(name, holder, token));
    };
    let mut record = Some(base);
    for _ in 0..ATTEMPTS {
        let Some(base) = record.take() else { break };
        let sent = Instant::now();
        let (object, renewed_at) = record::renewed(&base, record::now(), duration);
        let written = match inner.kube.replace(name, &object).await {
            Ok(written) => Record::read(written)?,
            Err(Failure::Conflict) => {
                record = read(inner, name).await?.filter(|record| record.held_by(holder, token));
                continue;
            }
            Err(Failure::NotFound(_)) => break,
            Err(Failure::Refused(err)) => return Err(err),
            // The renewal may have been applied: the record says, never a second write.
            Err(Failure::Unknown(err)) => match read(inner, name).await? {
                Some(record)
                    if record.held_by(holder, token)
                        && record.renewed_at == renewed_at
                        && record.version() != base.version() =>
                {
                    record
                }
                Some(record) if record.held_by(holder, token) => return Err(err),
                _ => break,
            },
        };
        inner.terms.remember(name, Term { record: written.clone(), sent });
        return written.lease(&params.name);
    }
    inner.terms.forget_if(name, |term| term.of(holder, token));
    Err(lost(name, holder, token))
}

/// Renews every listed term of a holder, a few at a time (Kubernetes has no transaction over
/// several objects). A renewal whose outcome is unknown is in neither list (its term is not
/// confirmed, and the next call tries again); the call fails only if every renewal did.
pub(crate) async fn renew_all(inner: &Inner, params: RenewAllParams) -> Result<RenewAllOutcome> {
    renew_each(params, |params| renew(inner, params)).await
}

/// Releases the caller's term: the holder identity cleared, as client-go's release does, so
/// that a watching contender takes the lease at once.
pub(crate) async fn release(inner: &Inner, params: ReleaseParams) -> Result<bool> {
    let name = names::object_name(&params.name)?;
    let (holder, token) = (&params.holder, params.token);
    let mut record = match inner.terms.get(name).filter(|term| term.of(holder, token)) {
        Some(term) => Some(term.record),
        None => read(inner, name).await?.filter(|record| record.held_by(holder, token)),
    };
    inner.terms.forget_if(name, |term| term.of(holder, token));
    for _ in 0..ATTEMPTS {
        let Some(base) = record.take() else { break };
        let now = record::now();
        match inner.kube.replace(name, &record::released(&base, now, ReleaseKind::Graceful)).await {
            Ok(written) => {
                events::leader_change(inner, &Record::read(written)?, holder, false);
                return Ok(true);
            }
            Err(Failure::Conflict) => {
                record = read(inner, name).await?.filter(|record| record.held_by(holder, token))
            }
            Err(Failure::NotFound(_)) => break,
            Err(Failure::Refused(err)) => return Err(err),
            Err(Failure::Unknown(err)) => {
                return match read(inner, name).await? {
                    Some(record) if record.holder.is_none() && record.renewed_at == now => Ok(true),
                    Some(record) if record.held_by(holder, token) => Err(err),
                    _ => Ok(false),
                };
            }
        }
    }
    Ok(false)
}

/// Frees a lease whoever holds it (a holder that is not baton included).
pub(crate) async fn force_release(
    inner: &Inner,
    params: ForceReleaseParams,
) -> Result<Option<Lease>> {
    let name = names::object_name(&params.name)?;
    for _ in 0..ATTEMPTS {
        let Some(record) = read(inner, name).await?.filter(|record| record.holder.is_some()) else {
            return Ok(None);
        };
        match inner
            .kube
            .replace(name, &record::released(&record, record::now(), ReleaseKind::Forced))
            .await
        {
            Ok(_) => {
                let term = (record.holder.as_deref().map(HolderId::new), record.token);
                if let (Some(Ok(holder)), Some(token)) = term {
                    inner.terms.forget_if(name, |term| term.of(&holder, token));
                }
                return Ok(Some(record.lease(&params.name)?));
            }
            Err(Failure::Conflict) => continue,
            Err(Failure::NotFound(_)) => return Ok(None),
            Err(failure) => {
                return Err(failure.into_error(&format!("releasing lease {name} by force")));
            }
        }
    }
    Err(Error::new(
        ErrorKind::Conflict,
        format!("lease {name} kept changing while it was released by force; try again"),
    ))
}
