//! Releasing a lease: by its holder (compare-and-set on holder and token), or by force.
//!
//! Both delete the holder key, which ends the term at once (the watch reports it to waiters),
//! and its index key, and record the release; the record keeps the token.

use baton_core::{Error, ErrorKind, HolderId, Lease, LeaseName, ReleaseParams, Result};

use crate::keys::{self, LeaseKeys};
use crate::record::{self, State, event, now_ms};
use crate::store::Inner;
use crate::wire::{KeyValue, op, txn};

/// Forced releases tried at most while the lease keeps changing hands.
const ATTEMPTS: usize = 4;

/// Releases a lease its caller holds; answers whether it did. A release that fails is sent
/// again before the holder's next acquisition or renewal through this store.
pub(crate) async fn release(inner: &Inner, params: &ReleaseParams) -> Result<bool> {
    let released = release_once(inner, params).await;
    if released.is_err() {
        inner.pending.add(params.clone());
    }
    released
}

/// Sends the failed releases of `holder` again; those that fail once more are kept.
pub(crate) async fn retry_failed(inner: &Inner, holder: &HolderId) {
    for params in inner.pending.take(holder) {
        if let Err(err) = release(inner, &params).await {
            tracing::warn!(lease = %params.name, %err, "sending a failed release again failed");
        }
    }
}

async fn release_once(inner: &Inner, params: &ReleaseParams) -> Result<bool> {
    let name = &params.name;
    let keys = LeaseKeys::of(name);
    let token = params.token.to_store();
    let mut known = inner.remembered(name);
    if known.token() != Some(token) {
        known = inner.read_state(name).await?;
    }
    // The etcd lease carrying the term names its index key; a term of another token fails the
    // comparison anyway.
    let carrier = known.carrier().unwrap_or(0);
    let value = event(now_ms(), Some("graceful"));
    let request = txn(
        held_by(&keys, &params.holder, token),
        vec![
            op::get(&keys.record),
            op::get(&keys::renewal(carrier)),
            op::delete(&keys.holder),
            op::delete(&keys::held(&params.holder, carrier, name)),
            op::put(&keys.release, &value, 0),
        ],
        vec![],
    );
    let answer = inner.client.txn(&request, format!("releasing lease {name}")).await?;
    if answer.succeeded {
        let record = answer.first(0);
        let seq = record
            .as_ref()
            .and_then(|kv| serde_json::from_slice::<record::RecordValue>(&kv.value).ok());
        let release = KeyValue {
            key: keys.release.clone(),
            mod_revision: answer.header.revision,
            value,
            ..KeyValue::default()
        };
        inner.remember(
            name,
            State {
                record,
                holder: None,
                renewal: answer.first(1),
                renewal_of: carrier,
                release: Some(release),
                last_seq: seq.map_or(0, |value| value.seq),
            },
        );
    }
    Ok(answer.succeeded)
}

/// The comparisons that hold while `holder` holds the lease under `token`.
fn held_by(keys: &LeaseKeys, holder: &HolderId, token: i64) -> Vec<serde_json::Value> {
    vec![op::created_at(&keys.holder, token), op::holds(&keys.holder, holder.as_str().as_bytes())]
}

/// Frees a lease whoever holds it; answers the lease as it was, if it was held.
pub(crate) async fn force(inner: &Inner, name: &LeaseName) -> Result<Option<Lease>> {
    let keys = LeaseKeys::of(name);
    let action = format!("force-releasing lease {name}");
    let mut state = inner.read_state(name).await?;
    for _ in 0..ATTEMPTS {
        let Some(holder) = &state.holder else {
            return Ok(None);
        };
        let mut success = vec![
            op::delete(&keys.holder),
            op::put(&keys.release, &event(now_ms(), Some("forced")), 0),
        ];
        if let (Some(value), Some(carrier)) = (state.value(name)?, state.carrier()) {
            success.push(op::delete(&keys::held(&HolderId::new(&value.holder)?, carrier, name)));
        }
        let carrier = state.carrier().unwrap_or(0);
        let request = txn(
            vec![op::created_at(&keys.holder, holder.create_revision)],
            success,
            record::reads(&keys, carrier),
        );
        let answer = inner.client.txn(&request, &action).await?;
        if answer.succeeded {
            return state.lease(name);
        }
        state = State::read(&answer, 0, carrier);
        inner.complete(&mut state).await?;
    }
    Err(Error::new(ErrorKind::Conflict, format!("{action}: it kept changing hands; try again")))
}
