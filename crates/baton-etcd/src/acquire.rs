//! Acquiring a lease: one transaction that compares the lease's keys with the state the store
//! last saw and, if none changed and nobody holds the lease, writes the new term; its revision
//! is the token.
//!
//! The etcd lease that carries the new holder key is kept alive in the same instant, so that
//! it lives at least the TTL from the moment the acquisition was sent: a holder's local
//! deadline counts from then.

use baton_core::lease::transition;
use baton_core::{AcquireOutcome, AcquireParams, Error, ErrorKind, Lease, Result, StoreTime};
use serde_json::Value;

use crate::error::malformed;
use crate::keys::{self, LeaseKeys};
use crate::record::{self, HistoryValue, RecordValue, State, encode, now_ms};
use crate::release;
use crate::sessions::whole_seconds;
use crate::store::Inner;
use crate::wire::{KeyValue, LeaseAnswer, op, txn};

/// Transactions one acquisition sends at most: the state it compared with may be stale, and
/// the holder's etcd lease may have expired since the store last used it.
const ATTEMPTS: usize = 4;

/// Acquires `params.name` for `params.holder` if nobody holds it.
pub(crate) async fn acquire(inner: &Inner, params: AcquireParams) -> Result<AcquireOutcome> {
    let ttl = transition::check_ttl(params.ttl)?;
    let seconds = whole_seconds(ttl)?;
    let name = &params.name;
    let keys = LeaseKeys::of(name);
    let action = format!("acquiring lease {name}");
    release::retry_failed(inner, &params.holder).await;
    let (mut state, mut fresh) = (inner.remembered(name), false);
    for _ in 0..ATTEMPTS {
        inner.complete(&mut state).await?;
        if fresh && state.is_held() {
            let lease = state.lease(name)?.ok_or_else(|| {
                malformed(format!(
                    "lease {name} has a holder key but no record: keys under baton/ were \
                     changed by something other than baton"
                ))
            })?;
            inner.remember(name, state);
            return Ok(AcquireOutcome::Held(lease));
        }
        let looks_free = !state.is_held();
        let id =
            inner.sessions.lease_for(&inner.client, &params.holder, seconds, looks_free).await?;
        let at = now_ms();
        let (reason, ended) = state.previous(name)?;
        let seq = state.next_seq(name)?;
        let value = RecordValue {
            holder: params.holder.to_string(),
            ttl_ms: ttl.as_millis() as u64,
            at,
            seq,
            lease: id,
        };
        let entry = HistoryValue {
            holder: value.holder.clone(),
            reason: reason.as_str().into(),
            at,
            ended: ended.map(StoreTime::as_millis),
        };
        let request = grant(inner, &params, &keys, &state, &value, &entry);
        // Kept alive with the transaction when the lease looks free, after it otherwise: a
        // refused attempt must not keep alive an etcd lease that may carry a term its holder
        // no longer knows of.
        let ids = [id];
        let (answer, kept) = match looks_free {
            true => {
                tokio::join!(inner.client.txn(&request, &action), inner.client.keep_alive(&ids))
            }
            false => {
                let answer = inner.client.txn(&request, &action).await;
                let kept = match &answer {
                    Ok(answer) if answer.succeeded => inner.client.keep_alive(&ids).await,
                    _ => Ok(Vec::new()),
                };
                (answer, kept)
            }
        };
        let answer = match answer {
            Err(err) if err.kind() == ErrorKind::NotFound => {
                // The holder's etcd lease expired: nothing was written; grant a new one.
                inner.sessions.forget(id);
                continue;
            }
            answer => answer?,
        };
        if !answer.succeeded {
            (state, fresh) = (State::read(&answer, 0, state.carrier().unwrap_or(0)), true);
            continue;
        }
        confirm_kept_alive(kept, id, &action)?;
        let revision = answer.header.revision;
        inner.remember(name, granted_state(&state, &keys, &value, revision));
        let lease = Lease {
            name: name.clone(),
            holder: Some(params.holder.clone()),
            token: baton_core::FencingToken::from_store(revision)?,
            acquired_at: StoreTime::from_millis(at),
            renewed_at: StoreTime::from_millis(at),
            expires_at: StoreTime::from_millis(at).saturating_add(ttl),
            ttl,
            released: None,
        };
        return Ok(AcquireOutcome::Acquired { lease, reason });
    }
    Err(Error::new(
        ErrorKind::Conflict,
        format!("{action}: it kept changing in etcd at {}; try again", inner.client.endpoint()),
    ))
}

/// The transaction writing a new term if the lease's keys are as `state` saw them and the
/// lease is not held; otherwise it reads them again.
///
/// `state` must hold the renewal of the etcd lease carrying its latest term: that renewal,
/// compared too, is when the term ended if it expired.
fn grant(
    inner: &Inner,
    params: &AcquireParams,
    keys: &LeaseKeys,
    state: &State,
    value: &RecordValue,
    entry: &HistoryValue,
) -> Value {
    let revision = |kv: &Option<KeyValue>| kv.as_ref().map_or(0, |kv| kv.mod_revision);
    let history = keys.history_entry(value.seq);
    let compare = vec![
        op::written_at(&keys.record, revision(&state.record)),
        op::created_at(&keys.holder, 0),
        op::written_at(&keys::renewal(state.renewal_of), revision(&state.renewal)),
        op::written_at(&keys.release, revision(&state.release)),
        op::created_at(&history, 0),
    ];
    let record = encode(value);
    let mut success = vec![
        op::put(&keys.record, &record, 0),
        op::put(&keys.holder, value.holder.as_bytes(), value.lease),
        op::put(&keys::held(&params.holder, value.lease, &params.name), &record, value.lease),
        op::put(&history, &encode(entry), 0),
    ];
    if let Some(dropped) =
        value.seq.checked_sub(u64::from(inner.history_length)).filter(|seq| *seq > 0)
    {
        success.push(op::delete(&keys.history_entry(dropped)));
    }
    txn(compare, success, record::reads(keys, state.carrier().unwrap_or(0)))
}

/// The state right after a grant at `revision`.
fn granted_state(before: &State, keys: &LeaseKeys, value: &RecordValue, revision: i64) -> State {
    let written = |key: &[u8], bytes: Vec<u8>, lease: i64| KeyValue {
        key: key.to_vec(),
        create_revision: revision,
        mod_revision: revision,
        value: bytes,
        lease,
    };
    State {
        record: Some(written(&keys.record, encode(value), 0)),
        holder: Some(written(&keys.holder, value.holder.clone().into_bytes(), value.lease)),
        // Any renewal of the etcd lease so far was written before this term.
        renewal: None,
        renewal_of: value.lease,
        last_seq: value.seq,
        ..before.clone()
    }
}

/// Fails unless the keep-alive sent with the acquisition found the holder's etcd lease alive:
/// otherwise the new holder key may live less than the TTL, or already be gone.
fn confirm_kept_alive(kept: Result<Vec<LeaseAnswer>>, id: i64, action: &str) -> Result<()> {
    match kept {
        Ok(answers) if answers.first().is_some_and(|answer| answer.ttl > 0) => Ok(()),
        Ok(_) => Err(Error::new(
            ErrorKind::Unavailable,
            format!(
                "{action}: the holder's etcd lease {id:x} expired as the lease was granted; \
                     the term may already be over: read it back"
            ),
        )),
        Err(err) => Err(Error::new(
            ErrorKind::Unavailable,
            format!(
                "{action}: the lease was granted but its etcd lease {id:x} could not be kept \
                     alive ({err}): read it back"
            ),
        )),
    }
}
