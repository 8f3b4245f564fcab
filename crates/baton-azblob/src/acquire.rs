//! Acquiring a lease in three writes, each conditional, so that a token is never issued twice
//! and a holder never acts under a token lower than an earlier holder's:
//!
//! 1. **Claim**: read the blob (creating it with a new epoch if it is missing); if its lease is
//!    not held, write the next token and this holder into its metadata under the ETag read. Of
//!    contenders that read the same version, one claim lands; the others' `412` is a lost race.
//! 2. **Lease**: acquire the service's lease for the TTL, with the term's lease ID, under the
//!    claim's ETag. A later claim (a contender that saw this claim before the lease was taken)
//!    changed the ETag, so at most the latest claim gets the lease: whenever the blob is leased,
//!    its metadata names the lease's holder and token.
//! 3. **Confirm**: under the lease, write the grant's time (the service's `Date` of the lease
//!    answer) and append the leader change to the blob's content.
//!
//! Tokens rise: a claim writes the token read plus one under the ETag read, so every claim
//! writes a token above every claim before it, confirmed or not. A write without an answer is
//! resolved by reading the blob back, never by sending it again.

use std::time::Duration;

use baton_core::{
    AcquireOutcome, AcquireParams, Error, ErrorKind, FencingToken, LeaseName, Result,
};
use bytes::Bytes;

use crate::client::{Blob, Condition, Failure, LeaseAction};
use crate::record::{self, Record};
use crate::store::Inner;
use crate::{epoch, names};

/// The shortest lease the service grants.
pub const MIN_TTL: Duration = Duration::from_secs(15);
/// The longest lease the service grants short of an infinite one, which baton refuses.
pub const MAX_TTL: Duration = Duration::from_secs(60);
/// Rounds of claim and lease before a contender that keeps losing races gives up.
const ATTEMPTS: usize = 8;

/// Checks a TTL: whole seconds from 15 to 60, the leases the service grants.
pub(crate) fn ttl_seconds(ttl: Duration) -> Result<u32> {
    match (MIN_TTL..=MAX_TTL).contains(&ttl) && ttl.subsec_nanos() == 0 {
        true => Ok(ttl.as_secs() as u32),
        false => Err(Error::invalid_input(format!(
            "invalid TTL {ttl:?} for an Azure blob lease: the service grants whole seconds from 15s to 60s (infinite leases are refused)"
        ))),
    }
}

/// What one round of claim and lease came to.
enum Round {
    /// The lease is held by someone (possibly the caller in an earlier call).
    Held(Blob),
    /// Another contender's write came first: read again.
    Lost,
    /// The term is the caller's: leased under its claim, not yet confirmed.
    Leased { claim: Record, blob: Blob, lease_id: String, at: baton_core::StoreTime },
}

/// Acquires `params.name` if the service says its lease is not held.
pub(crate) async fn acquire(inner: &Inner, params: AcquireParams) -> Result<AcquireOutcome> {
    let seconds = ttl_seconds(params.ttl)?;
    let blob_name = names::blob_name(&params.name);
    for _ in 0..ATTEMPTS {
        let Some(blob) = read_or_create(inner, &blob_name).await? else { continue };
        match round(inner, &params, &blob_name, blob, seconds).await? {
            Round::Lost => continue,
            Round::Held(blob) => {
                let record = Record::read(&blob.metadata)?;
                match record.lease(&params.name, blob.lease)? {
                    Some(lease) => return Ok(AcquireOutcome::Held(lease)),
                    None => continue,
                }
            }
            Round::Leased { claim, blob, lease_id, at } => {
                return confirm(inner, &params.name, &blob_name, claim, &blob, &lease_id, at).await;
            }
        }
    }
    Err(Error::new(
        ErrorKind::Conflict,
        format!("lease {} changed hands while it was acquired; try again", params.name),
    ))
}

/// The lease blob, created with a new token epoch if missing; `None` if another contender
/// created it meanwhile (read it again).
async fn read_or_create(inner: &Inner, blob_name: &str) -> Result<Option<Blob>> {
    let read = |what| async move {
        inner.client.read(blob_name, true).await.map_err(|f| f.into_error(what))
    };
    if let Some(blob) = read("reading the lease blob").await? {
        return Ok(Some(blob));
    }
    let base = epoch::next_base(&inner.client).await?;
    let now = inner
        .client
        .container_date()
        .await
        .map_err(|f| inner.refusal(f, "reading the service's clock"))?;
    let fresh = Record::fresh(base, now).metadata();
    match inner.client.put(blob_name, Bytes::new(), &fresh, Condition::Absent, None).await {
        Ok(_) => read("reading the lease blob").await,
        Err(failure) if failure.is(409) || failure.is(412) => Ok(None),
        // A creation without an answer: the next read says whether it exists.
        Err(Failure::Unknown(_)) => Ok(None),
        Err(failure) => Err(inner.refusal(failure, "creating the lease blob")),
    }
}

/// One claim and lease on the blob as read.
async fn round(
    inner: &Inner,
    params: &AcquireParams,
    blob_name: &str,
    blob: Blob,
    seconds: u32,
) -> Result<Round> {
    if blob.lease.held() {
        return Ok(Round::Held(blob));
    }
    let current = Record::read(&blob.metadata)?;
    let claim = current.claim(blob.lease, &params.holder, params.ttl, blob.date);
    let token = FencingToken::new(claim.token)?;
    let claimed = inner
        .client
        .set_metadata(blob_name, &claim.metadata(), Condition::Matches(&blob.etag), None)
        .await;
    let claimed_etag = match claimed {
        Ok(written) => match written.etag {
            Some(etag) => etag,
            None => return Ok(Round::Lost),
        },
        Err(failure) if failure.is(412) || failure.is(409) || failure.is(404) => {
            return Ok(Round::Lost);
        }
        Err(Failure::Unknown(err)) => match reread(inner, blob_name).await? {
            Some(now) if Record::read(&now.metadata)?.claim_of(&params.holder, claim.token) => {
                now.etag
            }
            Some(now) if now.etag == blob.etag => return Err(err),
            _ => return Ok(Round::Lost),
        },
        Err(failure) => return Err(inner.refusal(failure, "claiming the lease")),
    };
    let lease_id = names::lease_id(&params.name, &params.holder, token);
    let action = LeaseAction::Acquire { seconds, id: &lease_id };
    let at = match inner.client.lease(blob_name, action, Some(&claimed_etag)).await {
        Ok(written) => written.date,
        Err(failure) if failure.is(409) || failure.is(412) || failure.is(404) => {
            return Ok(Round::Lost);
        }
        Err(Failure::Unknown(err)) => match reread(inner, blob_name).await? {
            // Leased under our claim: ours, granted no earlier than the claim was decided.
            Some(now)
                if now.lease.held()
                    && Record::read(&now.metadata)?.claim_of(&params.holder, claim.token) =>
            {
                claim.claimed_at
            }
            _ => return Err(err),
        },
        Err(failure) => return Err(inner.refusal(failure, "acquiring the blob's lease")),
    };
    Ok(Round::Leased { claim, blob, lease_id, at })
}

/// Writes the confirmed term and its leader change under the lease.
async fn confirm(
    inner: &Inner,
    name: &LeaseName,
    blob_name: &str,
    claim: Record,
    before: &Blob,
    lease_id: &str,
    at: baton_core::StoreTime,
) -> Result<AcquireOutcome> {
    let term = claim.confirmed(at);
    let change = term
        .change()
        .ok_or_else(|| Error::new(ErrorKind::Internal, "a confirmed term without a holder"))?;
    let content = record::with_change(record::history(&before.content)?, change);
    let written = inner
        .client
        .put(blob_name, Bytes::from(content), &term.metadata(), Condition::Any, Some(lease_id))
        .await;
    match written {
        Ok(_) => {}
        Err(Failure::Unknown(err)) => match reread(inner, blob_name).await? {
            Some(now) if Record::read(&now.metadata)? == term => {}
            _ => return Err(err),
        },
        Err(failure) if failure.is(409) || failure.is(412) => {
            return Err(Error::new(
                ErrorKind::Conflict,
                format!("lease {name} was broken while it was acquired; try again"),
            ));
        }
        Err(failure) => return Err(inner.refusal(failure, "confirming the lease")),
    }
    let lease = term
        .lease(name, crate::client::LeaseState::Leased)?
        .ok_or_else(|| Error::new(ErrorKind::Internal, "a confirmed term without a holder"))?;
    Ok(AcquireOutcome::Acquired { lease, reason: term.reason })
}

/// Reads the blob back after a write without an answer.
async fn reread(inner: &Inner, blob_name: &str) -> Result<Option<Blob>> {
    inner
        .client
        .read(blob_name, false)
        .await
        .map_err(|f| f.into_error("reading the lease blob back"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttls_are_whole_seconds_the_service_grants() {
        assert_eq!(ttl_seconds(Duration::from_secs(15)).unwrap(), 15);
        assert_eq!(ttl_seconds(Duration::from_secs(60)).unwrap(), 60);
        for ttl in [
            Duration::from_secs(14),
            Duration::from_secs(61),
            Duration::from_millis(15_500),
            Duration::ZERO,
            Duration::MAX,
        ] {
            let err = ttl_seconds(ttl).expect_err("refused");
            assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
            assert!(err.to_string().contains("15s to 60s"), "{err}");
        }
    }
}
