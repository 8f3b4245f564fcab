//! Renewing and releasing a term with the service's lease actions under the term's lease ID
//! (derived from the lease, holder and token, so no memory of the term is needed), and
//! breaking a lease by force. Each writes the renewal's or release's time into the blob's
//! metadata too, for the leader change that follows.

use baton_core::{
    Error, FencingToken, ForceReleaseParams, HolderId, Lease, LeaseName, ReleaseKind,
    ReleaseParams, RenewAllOutcome, RenewAllParams, RenewParams, Result,
};

use baton_core::lease::renew_each;

use crate::client::{Blob, Condition, Failure, LeaseAction, LeaseState};
use crate::names;
use crate::record::Record;
use crate::store::Inner;

fn lost(name: &LeaseName, holder: &HolderId, token: FencingToken) -> Error {
    Error::lease_lost(format!("lease {name} is no longer held by {holder} under token {token}"))
}

/// The blob and its record, if the record is the confirmed term of `holder` under `token`
/// and the service says the lease is held.
async fn held_term(
    inner: &Inner,
    blob_name: &str,
    holder: &HolderId,
    token: FencingToken,
) -> Result<Option<(Blob, Record)>> {
    let blob = inner
        .client
        .read(blob_name, false)
        .await
        .map_err(|f| f.into_error("reading the lease blob"))?;
    let Some(blob) = blob.filter(|blob| blob.lease == LeaseState::Leased) else { return Ok(None) };
    let record = Record::read(&blob.metadata)?;
    Ok(record.term_of(holder, token).then_some((blob, record)))
}

/// Renews one term: the service's renewal under the term's lease ID, then its time recorded.
pub(crate) async fn renew(inner: &Inner, params: RenewParams) -> Result<Lease> {
    let (name, holder, token) = (&params.name, &params.holder, params.token);
    let blob_name = names::blob_name(name);
    let Some((_, record)) = held_term(inner, &blob_name, holder, token).await? else {
        return Err(lost(name, holder, token));
    };
    let lease_id = names::lease_id(name, holder, token);
    let renewed_at =
        match inner.client.lease(&blob_name, LeaseAction::Renew { id: &lease_id }, None).await {
            Ok(written) => written.date,
            Err(failure) if failure.is(409) || failure.is(412) || failure.is(404) => {
                return Err(lost(name, holder, token));
            }
            Err(failure) => return Err(failure.into_error(&format!("renewing lease {name}"))),
        };
    let renewed = Record { renewed_at: Some(renewed_at), ..record };
    match inner
        .client
        .set_metadata(&blob_name, &renewed.metadata(), Condition::Any, Some(&lease_id))
        .await
    {
        Ok(_) => {}
        Err(failure) if failure.is(409) || failure.is(412) || failure.is(404) => {
            return Err(lost(name, holder, token));
        }
        Err(failure) => {
            return Err(failure.into_error(&format!("recording the renewal of lease {name}")));
        }
    }
    renewed.lease(name, LeaseState::Leased)?.ok_or_else(|| lost(name, holder, token))
}

/// Renews every listed term of a holder, a few at a time (the service has no transaction over
/// several blobs).
pub(crate) async fn renew_all(inner: &Inner, params: RenewAllParams) -> Result<RenewAllOutcome> {
    renew_each(params, |params| renew(inner, params)).await
}

/// Releases the caller's term: the service's release under the term's lease ID, then the
/// release recorded (unless a contender claimed the lease first).
pub(crate) async fn release(inner: &Inner, params: ReleaseParams) -> Result<bool> {
    let (name, holder, token) = (&params.name, &params.holder, params.token);
    let blob_name = names::blob_name(name);
    let Some((blob, record)) = held_term(inner, &blob_name, holder, token).await? else {
        return Ok(false);
    };
    let lease_id = names::lease_id(name, holder, token);
    let released_at =
        match inner.client.lease(&blob_name, LeaseAction::Release { id: &lease_id }, None).await {
            Ok(written) => written.date,
            Err(failure) if failure.is(409) || failure.is(412) || failure.is(404) => {
                return Ok(false);
            }
            Err(Failure::Unknown(err)) => {
                return match inner.client.read(&blob_name, false).await {
                    Ok(Some(now)) if now.lease == LeaseState::Leased => Err(err),
                    Ok(_) => Ok(true),
                    Err(_) => Err(err),
                };
            }
            Err(failure) => return Err(failure.into_error(&format!("releasing lease {name}"))),
        };
    record_end(inner, &blob_name, &blob, record, ReleaseKind::Graceful, released_at).await;
    Ok(true)
}

/// Breaks a lease whoever holds it (a holder that is not baton included), at once.
pub(crate) async fn force_release(
    inner: &Inner,
    params: ForceReleaseParams,
) -> Result<Option<Lease>> {
    let name = &params.name;
    let blob_name = names::blob_name(name);
    let blob = inner
        .client
        .read(&blob_name, false)
        .await
        .map_err(|f| f.into_error("reading the lease blob"))?;
    let Some(blob) = blob.filter(|blob| blob.lease.held()) else { return Ok(None) };
    let record = Record::read(&blob.metadata)?;
    let previous = record.lease(name, blob.lease)?;
    let broken_at = match inner.client.lease(&blob_name, LeaseAction::Break, None).await {
        Ok(written) => written.date,
        Err(failure) if failure.is(409) || failure.is(404) => return Ok(None),
        Err(failure) => return Err(failure.into_error(&format!("breaking the lease of {name}"))),
    };
    record_end(inner, &blob_name, &blob, record, ReleaseKind::Forced, broken_at).await;
    Ok(previous)
}

/// Records how and when a term ended, under the ETag read before the end: a contender that
/// claimed the lease meanwhile already judged the end by the service's lease state, so a lost
/// race (or a lost answer) here changes nothing that matters.
async fn record_end(
    inner: &Inner,
    blob_name: &str,
    blob: &Blob,
    record: Record,
    kind: ReleaseKind,
    at: baton_core::StoreTime,
) {
    let ended = Record { released: Some((kind, at)), ..record };
    let written = inner
        .client
        .set_metadata(blob_name, &ended.metadata(), Condition::Matches(&blob.etag), None)
        .await;
    if let Err(failure) = written {
        tracing::debug!(blob = blob_name, ?failure, "the end of a term was not recorded");
    }
}
