//! Acquiring a lease: judge the record (absent, released, or unchanged for its duration in this
//! process's sight), then write the new term, the raised token counter and the leader change in
//! one transaction, conditional on the lease item and the counter being as read, so that of two
//! contenders that read the same record one wins.

use std::time::Duration;

use aws_sdk_dynamodb::types::{Put, TransactWriteItem};
use baton_core::lease::TermRecord;
use baton_core::lease::transition::check_ttl;
use baton_core::{
    AcquireOutcome, AcquireParams, ChangeReason, Error, ErrorKind, Lease, LeaseName, ReleaseKind,
    Result,
};
use tokio::time::Instant;

use crate::client::Failure;
use crate::history::Change;
use crate::keys;
use crate::reads::{counter, read};
use crate::record::{self, Grant, Record};
use crate::store::Inner;
use crate::terms::Term;
use crate::tokens::clock_micros;

/// Acquires `params.name` if its record is absent, released, or unchanged for its duration
/// since this process first saw it.
pub(crate) async fn acquire(inner: &Inner, params: AcquireParams) -> Result<AcquireOutcome> {
    let duration = check_ttl(params.ttl)?;
    let name = &params.name;
    let (current, counter) = tokio::try_join!(read(inner, name), counter(inner, name))?;
    let (reason, previous_end) = match &current {
        None => (ChangeReason::Fresh, None),
        Some(record) if record.holder.is_some() => {
            let unchanged = inner.sightings.unchanged_for(name.as_str(), &record.version());
            if unchanged < record.duration {
                let remaining = record.duration - unchanged;
                return Ok(AcquireOutcome::Held(seen_as_held(record, name, remaining)?));
            }
            (ChangeReason::ExpiredTakeover, Some(record.renewed_at))
        }
        Some(record) => match record.released {
            Some(ReleaseKind::Forced) => (ChangeReason::ForcedRelease, Some(record.renewed_at)),
            _ => (ChangeReason::Handover, Some(record.renewed_at)),
        },
    };
    let token = counter.next(current.as_ref(), clock_micros())?;
    let grant = Grant { name, holder: &params.holder, token, duration, now: record::now() };
    let change = Change { holder: &params.holder, token, at: grant.now, reason, previous_end };
    let table = &inner.dynamo.table;
    let items = vec![
        put_term(table, &grant, current.as_ref())?,
        counter.raise(table, name.as_str(), token)?,
        change.put(table, name.as_str(), counter.acquisitions)?,
    ];
    let sent = Instant::now();
    let record = match inner.dynamo.transact(items).await {
        Ok(()) => grant.record(current.as_ref()),
        Err(Failure::ConditionFailed | Failure::Cancelled) => return lost_race(inner, name).await,
        Err(Failure::Refused(err) | Failure::MissingTable(err)) => return Err(err),
        Err(Failure::Unknown(err)) => {
            // The transaction may have been applied: the item says, never a second attempt.
            match read(inner, name).await? {
                Some(record) if record.held_by(&params.holder, token) => record,
                Some(record) if Some(record.version()) != current.as_ref().map(Record::version) => {
                    return lost_race(inner, name).await;
                }
                _ => return Err(err),
            }
        }
    };
    inner.sightings.saw(name.as_str(), &record.version());
    inner.terms.remember(name.as_str(), Term { record: record.clone(), sent });
    Ok(AcquireOutcome::Acquired { lease: record.lease(name)?, reason })
}

/// The transaction item writing the new term over `current` (or where there is none).
fn put_term(table: &str, grant: &Grant<'_>, current: Option<&Record>) -> Result<TransactWriteItem> {
    let put = Put::builder().table_name(table).set_item(Some(grant.item(current)));
    let put = match current {
        Some(record) => put
            .condition_expression("#rev = :rev AND #token = :token")
            .set_expression_attribute_names(Some(keys::names(&[keys::REV, keys::TOKEN])))
            .expression_attribute_values(":rev", keys::n(record.rev))
            .expression_attribute_values(":token", keys::n(record.token)),
        None => put
            .condition_expression("attribute_not_exists(#pk)")
            .set_expression_attribute_names(Some(keys::names(&[keys::PK]))),
    };
    let put = put.build().map_err(|err| Error::new(ErrorKind::Internal, err.to_string()))?;
    Ok(TransactWriteItem::builder().put(put).build())
}

/// The record of a lease held by someone else as this contender judges it: held until its
/// duration has passed unchanged in this process's sight, `remaining` from now.
fn seen_as_held(record: &Record, name: &LeaseName, remaining: Duration) -> Result<Lease> {
    let lease = record.lease(name)?;
    Ok(Lease { expires_at: record::now().saturating_add(remaining), ..lease })
}

/// Another contender's write came first: the lease as it is now, or a conflict if it is free
/// again already.
async fn lost_race(inner: &Inner, name: &LeaseName) -> Result<AcquireOutcome> {
    match read(inner, name).await? {
        Some(record) if record.holder.is_some() => {
            let unchanged = inner.sightings.unchanged_for(name.as_str(), &record.version());
            let remaining = record.duration.saturating_sub(unchanged);
            Ok(AcquireOutcome::Held(seen_as_held(&record, name, remaining)?))
        }
        _ => Err(Error::new(
            ErrorKind::Conflict,
            format!("lease {name} changed hands while it was acquired; try again"),
        )),
    }
}
