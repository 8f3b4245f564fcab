//! Acquiring a lease: one conditional multi-operation creates the term node, updates the record
//! and appends the leader change, so that the three never disagree.
//!
//! The decision to grant is never taken on a read alone: the write is conditional on the
//! record's version (and on the expired term node's version when it takes one over), so a read
//! that was stale, or a change that raced it, makes the write fail and the lease is read again.

use std::time::Duration;

use baton_core::lease::transition::check_ttl;
use baton_core::{
    AcquireOutcome, AcquireParams, ChangeReason, Error, HolderId, Lease, Result, StoreTime,
};
use zookeeper_client::{Client, CreateMode, Error as ZkError, MultiWriteError, MultiWriteResult};

use crate::error::conflict;
use crate::paths;
use crate::reads;
use crate::record::{Change, Current, Record, State, Term, encode};
use crate::store::Inner;

/// Leader changes kept per lease; the oldest goes as a new one is added.
pub const HISTORY_LENGTH: u64 = 1000;

/// How many times a decision is taken again after a concurrent change, before giving up with
/// a conflict.
const ATTEMPTS: usize = 5;

/// What to do with a lease.
enum Decision {
    Grant { reason: ChangeReason, previous_end: Option<StoreTime> },
    Refuse(Lease),
}

/// Why a grant was not written.
enum Failed {
    /// The lease changed meanwhile: read it and decide again.
    Changed,
    /// The base nodes are missing: create them and write again.
    NoBase,
    /// The oldest change record to drop is already gone: write again without dropping it.
    NothingToPrune,
    Error(Error),
}

pub(crate) async fn acquire(inner: &Inner, params: AcquireParams) -> Result<AcquireOutcome> {
    check_ttl(params.ttl)?;
    check_session(inner, params.ttl)?;
    let session = &inner.session;
    let (client, generation) = session.attached().await?;
    let name = &params.name;
    let mut known = inner.known.free(name).map(Some);
    let mut prune = true;
    for _ in 0..ATTEMPTS {
        let (current, watcher) = match known.take() {
            Some(current) => (current, None),
            None => reads::current(session, &client, name, true).await?,
        };
        let (reason, previous_end) = match decide(inner, current.as_ref()).await? {
            Decision::Grant { reason, previous_end } => (reason, previous_end),
            Decision::Refuse(lease) => {
                inner.known.forget(name);
                inner.waiters.wait_on(name, generation, watcher);
                return Ok(AcquireOutcome::Held(lease));
            }
        };
        let change = Change {
            holder: params.holder.to_string(),
            reason: reason.as_str().to_string(),
            previous_end: previous_end.map(StoreTime::as_millis),
        };
        match grant(inner, &client, &params, current.as_ref(), &change, prune).await {
            Ok(lease) => return Ok(AcquireOutcome::Acquired { lease, reason }),
            Err(Failed::Changed) => {}
            Err(Failed::NoBase) => {
                session.ensure_base(&client).await?;
                known = Some(current);
            }
            Err(Failed::NothingToPrune) => {
                prune = false;
                known = Some(current);
            }
            Err(Failed::Error(err)) => return Err(err),
        }
    }
    Err(conflict(format!("acquiring lease {name}")))
}

/// Refuses a TTL the session cannot carry: a session expiry must never end a term before its
/// holder's deadline, so no lease may outlive the session timeout the ensemble granted.
fn check_session(inner: &Inner, ttl: Duration) -> Result<()> {
    let granted = inner.session.timeout();
    if ttl > granted {
        return Err(Error::invalid_input(format!(
            "TTL {ttl:?} is longer than the ZooKeeper session timeout {granted:?} the ensemble \
             granted: expected a TTL up to {granted:?}, or a longer session_timeout= in the URL \
             (the ensemble clamps it to its minSessionTimeout..maxSessionTimeout, by default 2 \
             to 20 ticks)"
        )));
    }
    Ok(())
}

/// Grants a lease that has no record, whose term ended, or whose term lapsed on the
/// ensemble's clock; refuses it otherwise.
async fn decide(inner: &Inner, current: Option<&Current>) -> Result<Decision> {
    let Some(current) = current else {
        return Ok(Decision::Grant { reason: ChangeReason::Fresh, previous_end: None });
    };
    if current.record.state == State::Held && current.term.is_some() {
        let expires_at = current.lease.expires_at;
        // The estimate may refuse a lease that just expired (its holder's next contender gets
        // it); only the clock read below grants one.
        if inner.session.estimate() < expires_at.as_millis()
            || reads::now(&inner.session).await? < expires_at
        {
            return Ok(Decision::Refuse(current.lease.clone()));
        }
    }
    let (reason, previous_end) = current.next_reason();
    Ok(Decision::Grant { reason, previous_end })
}

/// Writes the grant: the record, the new term node, the change record (and drops the oldest
/// change record past [`HISTORY_LENGTH`]), deleting an expired term node, all or nothing.
async fn grant(
    inner: &Inner,
    client: &Client,
    params: &AcquireParams,
    current: Option<&Current>,
    change: &Change,
    prune: bool,
) -> std::result::Result<Lease, Failed> {
    let session = &inner.session;
    let name = &params.name;
    let record_path = paths::record(name);
    let generation = current.map_or(1, |c| c.record.generation + 1);
    let record = Record {
        generation,
        holder: params.holder.to_string(),
        ttl_ms: u64::try_from(params.ttl.as_millis()).unwrap_or(u64::MAX),
        state: State::Held,
        ended: None,
    };
    let persistent = session.options(CreateMode::Persistent);
    let ephemeral = session.options(CreateMode::Ephemeral);
    let mut writer = client.new_multi_writer();
    let mut ops: Vec<Result<(), ZkError>> = Vec::new();
    let set_at = match current {
        None => {
            ops.push(writer.add_create(&record_path, b"", &persistent));
            ops.push(writer.add_set_data(&record_path, &encode(&record), Some(0)));
            1
        }
        Some(current) => {
            ops.push(writer.add_set_data(&record_path, &encode(&record), Some(current.version)));
            if let (State::Held, Some(term)) = (current.record.state, current.term) {
                let holder = HolderId::new(&current.record.holder).map_err(Failed::Error)?;
                ops.push(writer.add_delete(&paths::term(name, &holder), Some(term.version)));
            }
            0
        }
    };
    ops.push(writer.add_create(&paths::term(name, &params.holder), b"", &ephemeral));
    ops.push(writer.add_create(&paths::change(name, generation), &encode(change), &persistent));
    let prune_at = ops.len();
    if prune && generation > HISTORY_LENGTH {
        ops.push(writer.add_delete(&paths::change(name, generation - HISTORY_LENGTH), None));
    }
    if let Some(Err(err)) = ops.into_iter().find(Result::is_err) {
        return Err(Failed::Error(session.error(format!("acquiring lease {name}"), &err)));
    }
    let results = match writer.commit().await {
        Ok(results) => results,
        Err(MultiWriteError::OperationFailed { index: 0, source: ZkError::NoNode })
            if current.is_none() =>
        {
            return Err(Failed::NoBase);
        }
        Err(MultiWriteError::OperationFailed { index, source: ZkError::NoNode })
            if index == prune_at =>
        {
            return Err(Failed::NothingToPrune);
        }
        Err(MultiWriteError::OperationFailed {
            source: ZkError::NoNode | ZkError::NodeExists | ZkError::BadVersion,
            ..
        }) => return Err(Failed::Changed),
        Err(err) => {
            return Err(Failed::Error(
                session.error(format!("acquiring lease {name}"), &ZkError::from(err)),
            ));
        }
    };
    let Some(MultiWriteResult::SetData { stat }) = results.into_iter().nth(set_at) else {
        return Err(Failed::Error(crate::record::malformed("a grant without its record's stat")));
    };
    session.observe(stat.mtime);
    let term = Term { version: 0, mtime: stat.mtime };
    let granted = Current::new(name, record, &stat, Some(term)).map_err(Failed::Error)?;
    let lease = granted.lease.clone();
    inner.known.put(granted);
    Ok(lease)
}
