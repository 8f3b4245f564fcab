//! Renewing and releasing a term: one conditional update of the lease item on
//! (holder, token), with no read before it when this store wrote the term, so that a term taken
//! over meanwhile is never extended or cleared.

use std::time::Duration;

use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};
use baton_core::lease::TermRecord;
use baton_core::lease::renew_each;
use baton_core::{
    Error, ErrorKind, FencingToken, ForceReleaseParams, HolderId, Lease, LeaseName, ReleaseKind,
    ReleaseParams, RenewAllOutcome, RenewAllParams, RenewParams, Result,
};
use tokio::time::Instant;

use crate::client::Failure;
use crate::keys::{self, Item};
use crate::reads::read;
use crate::record::{self, Record};
use crate::store::Inner;
use crate::terms::Term;

/// Forced releases attempted while the lease keeps changing under them.
const ATTEMPTS: usize = 3;

/// What a renewal writes: the next revision, the renewal time and the term's own duration.
const RENEWAL: &str = "SET #rev = #rev + :one, #renewed_at = :now, #ttl_ms = :ttl";
/// What a release writes: no holder, how it was released, and when.
const RELEASE: &str =
    "REMOVE #holder SET #released = :kind, #renewed_at = :now, #rev = #rev + :one";
/// The condition of a renewal or a graceful release: the caller's term.
const THE_CALLERS_TERM: &str = "#holder = :holder AND #token = :token";
/// The condition of a forced release: the record as read.
const AS_READ: &str = "#rev = :rev AND #token = :token";

fn lost(name: &LeaseName, holder: &HolderId, token: FencingToken) -> Error {
    Error::lease_lost(format!("lease {name} is no longer held by {holder} under token {token}"))
}

/// One conditional update of a lease item; answers the item as written.
async fn update(
    inner: &Inner,
    name: &LeaseName,
    expression: &str,
    condition: &str,
    values: Vec<(&str, AttributeValue)>,
) -> Result<Item, Failure> {
    let attributes: Vec<&str> =
        [keys::HOLDER, keys::TOKEN, keys::REV, keys::RENEWED_AT, keys::TTL_MS, keys::RELEASED]
            .into_iter()
            .filter(|attribute| {
                let placeholder = format!("#{attribute}");
                expression.contains(&placeholder) || condition.contains(&placeholder)
            })
            .collect();
    let mut request = inner
        .dynamo
        .client
        .update_item()
        .table_name(&inner.dynamo.table)
        .set_key(Some(keys::lease(name.as_str())))
        .update_expression(expression)
        .condition_expression(condition)
        .set_expression_attribute_names(Some(keys::names(&attributes)))
        .return_values(ReturnValue::AllNew);
    for (placeholder, value) in values {
        request = request.expression_attribute_values(placeholder, value);
    }
    let output = request.send().await.map_err(|err| inner.dynamo.classify(err))?;
    Ok(output.attributes.unwrap_or_default())
}

/// The record of the caller's term and the term's own duration: as this store last wrote it
/// (unless the duration has passed since that write was sent), or as read (unless this process
/// has seen that version unchanged for its duration, as a contender would judge it).
async fn current_term(
    inner: &Inner,
    name: &LeaseName,
    holder: &HolderId,
    token: FencingToken,
) -> Result<Option<(Record, Duration)>> {
    if let Some(term) = inner.terms.get(name.as_str()).filter(|term| term.of(holder, token)) {
        let duration = term.record.duration;
        return Ok((!term.lapsed()).then_some((term.record, duration)));
    }
    let Some(record) = read(inner, name).await?.filter(|record| record.held_by(holder, token))
    else {
        return Ok(None);
    };
    let unchanged = inner.sightings.unchanged_for(name.as_str(), &record.version());
    let duration = record.duration;
    Ok((unchanged < duration).then_some((record, duration)))
}

/// Renews one term.
pub(crate) async fn renew(inner: &Inner, params: RenewParams) -> Result<Lease> {
    let (name, holder, token) = (&params.name, &params.holder, params.token);
    let Some((base, duration)) = current_term(inner, name, holder, token).await? else {
        inner.terms.forget_if(name.as_str(), |term| term.of(holder, token));
        return Err(lost(name, holder, token));
    };
    // Always later than the last renewal, so that a lost answer can be recognised by it.
    let renewed_at = record::now().max(base.renewed_at.saturating_add(Duration::from_millis(1)));
    let values = vec![
        (":one", keys::n(1)),
        (":now", keys::n(renewed_at.as_millis())),
        (":ttl", keys::n(duration.as_millis())),
        (":holder", keys::s(holder.as_str())),
        (":token", keys::n(token)),
    ];
    let sent = Instant::now();
    let record = match update(inner, name, RENEWAL, THE_CALLERS_TERM, values).await {
        Ok(item) => Record::read(&item)?,
        Err(Failure::ConditionFailed | Failure::Cancelled) => {
            inner.terms.forget_if(name.as_str(), |term| term.of(holder, token));
            return Err(lost(name, holder, token));
        }
        Err(Failure::Refused(err) | Failure::MissingTable(err)) => return Err(err),
        // The renewal may have been applied: the item says, never a second write.
        Err(Failure::Unknown(err)) => match read(inner, name).await? {
            Some(record) if record.held_by(holder, token) && record.renewed_at == renewed_at => {
                record
            }
            Some(record) if record.held_by(holder, token) => return Err(err),
            _ => {
                inner.terms.forget_if(name.as_str(), |term| term.of(holder, token));
                return Err(lost(name, holder, token));
            }
        },
    };
    inner.sightings.saw(name.as_str(), &record.version());
    inner.terms.remember(name.as_str(), Term { record: record.clone(), sent });
    record.lease(name)
}

/// Renews every listed term of a holder, a few at a time (one conditional update each). A
/// renewal whose outcome is unknown is in neither list (its term is not confirmed, and the next
/// call tries again); the call fails only if every renewal did.
pub(crate) async fn renew_all(inner: &Inner, params: RenewAllParams) -> Result<RenewAllOutcome> {
    renew_each(params, |params| renew(inner, params)).await
}

/// The values of a release written at `now`.
fn release_values(
    kind: ReleaseKind,
    now: baton_core::StoreTime,
) -> Vec<(&'static str, AttributeValue)> {
    vec![
        (":one", keys::n(1)),
        (":now", keys::n(now.as_millis())),
        (":kind", keys::s(kind.as_str())),
    ]
}

/// Releases the caller's term: the holder removed, the item (and its token) kept.
pub(crate) async fn release(inner: &Inner, params: ReleaseParams) -> Result<bool> {
    let (name, holder, token) = (&params.name, &params.holder, params.token);
    inner.terms.forget_if(name.as_str(), |term| term.of(holder, token));
    let now = record::now();
    let mut values = release_values(ReleaseKind::Graceful, now);
    values.extend([(":holder", keys::s(holder.as_str())), (":token", keys::n(token))]);
    match update(inner, name, RELEASE, THE_CALLERS_TERM, values).await {
        Ok(_) => Ok(true),
        Err(Failure::ConditionFailed | Failure::Cancelled) => Ok(false),
        Err(Failure::Refused(err) | Failure::MissingTable(err)) => Err(err),
        // The release may have been applied: the item says, never a second write.
        Err(Failure::Unknown(err)) => match read(inner, name).await? {
            Some(record)
                if record.holder.is_none()
                    && record.token == token
                    && record.renewed_at == now
                    && record.released == Some(ReleaseKind::Graceful) =>
            {
                Ok(true)
            }
            Some(record) if record.held_by(holder, token) => Err(err),
            _ => Ok(false),
        },
    }
}

/// Frees a lease whoever holds it; answers the record as it was.
pub(crate) async fn force_release(
    inner: &Inner,
    params: ForceReleaseParams,
) -> Result<Option<Lease>> {
    let name = &params.name;
    for _ in 0..ATTEMPTS {
        let Some(record) = read(inner, name).await?.filter(|record| record.holder.is_some()) else {
            return Ok(None);
        };
        let mut values = release_values(ReleaseKind::Forced, record::now());
        values.extend([(":rev", keys::n(record.rev)), (":token", keys::n(record.token))]);
        match update(inner, name, RELEASE, AS_READ, values).await {
            Ok(_) => {
                if let Some(Ok(holder)) = record.holder.as_deref().map(HolderId::new) {
                    inner.terms.forget_if(name.as_str(), |term| term.of(&holder, record.token));
                }
                return Ok(Some(record.lease(name)?));
            }
            Err(Failure::ConditionFailed | Failure::Cancelled) => continue,
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
