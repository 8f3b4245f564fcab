//! Renewing leases: one transaction reads the holder's index of held leases and records the
//! renewal once per etcd lease, while one keep-alive extends the etcd leases that carry them.
//! Whatever the number of leases, a renewal is one read, one write per etcd lease of the
//! holder (one per TTL it uses) and one keep-alive.

use std::collections::HashSet;

use baton_core::{ErrorKind, FencingToken, HolderId, Lease, LeaseName, Result, StoreTime};
use serde_json::Value;

use crate::error::malformed;
use crate::keys;
use crate::record::{RecordValue, event, now_ms};
use crate::release;
use crate::store::Inner;
use crate::wire::{KeyValue, op, txn};

/// Renews each of `leases` that `holder` still holds under the given token; answers, in order,
/// the renewed lease or `None` for one that is lost.
pub(crate) async fn renew(
    inner: &Inner,
    holder: &HolderId,
    leases: &[(LeaseName, FencingToken)],
) -> Result<Vec<Option<Lease>>> {
    release::retry_failed(inner, holder).await;
    let at = now_ms();
    let known = inner.sessions.of_holder(holder);
    let retention = inner.sessions.retention(&inner.client).await?;
    let kept_alive: Vec<i64> = known.iter().copied().chain([retention]).collect();
    let (held, kept) =
        tokio::join!(record(inner, holder, &known, at), inner.client.keep_alive(&kept_alive));
    let held = held?;
    let mut alive: HashSet<i64> =
        kept?.into_iter().filter(|answer| answer.ttl > 0).map(|answer| answer.id).collect();
    if !alive.contains(&retention) {
        inner.sessions.forget(retention);
    }
    // Leases this holder acquired through another store: their etcd leases are unknown here.
    let unknown: Vec<i64> = held
        .iter()
        .map(|kv| kv.lease)
        .filter(|id| !known.contains(id))
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    if !unknown.is_empty() {
        let (recorded, kept) =
            tokio::join!(record(inner, holder, &unknown, at), inner.client.keep_alive(&unknown));
        recorded?;
        alive.extend(kept?.into_iter().filter(|answer| answer.ttl > 0).map(|answer| answer.id));
    }
    for id in known.iter().filter(|id| !alive.contains(id)) {
        inner.sessions.forget(*id);
    }
    leases
        .iter()
        .map(|(name, token)| {
            let entry = held.iter().find(|kv| {
                kv.create_revision == token.to_store()
                    && alive.contains(&kv.lease)
                    && keys::held_name(&kv.key).as_ref() == Some(name)
            });
            entry.map(|kv| renewed(name, *token, kv, at)).transpose()
        })
        .collect()
}

/// Reads the index of the leases `holder` holds and records a renewal at `at` for each of the
/// etcd leases `carriers` that still carries one of them; answers the index.
///
/// Renewal keys are attached to the store's retention lease: if it expired, the transaction
/// writes nothing and is sent once more with a new one.
async fn record(
    inner: &Inner,
    holder: &HolderId,
    carriers: &[i64],
    at: i64,
) -> Result<Vec<KeyValue>> {
    let action = format!("renewing the leases of {holder}");
    let mut retried = false;
    loop {
        let retention = inner.sessions.retention(&inner.client).await?;
        let mut success = vec![op::prefix(&keys::held_by(holder))];
        success.extend(carriers.iter().map(|id| record_renewal(holder, *id, at, retention)));
        match inner.client.txn(&txn(vec![], success, vec![]), &action).await {
            Err(err) if err.kind() == ErrorKind::NotFound && !retried => {
                inner.sessions.forget(retention);
                retried = true;
            }
            answer => return Ok(answer?.range(0).kvs),
        }
    }
}

/// A nested transaction recording a renewal at `at` of the etcd lease `id`, if it still carries
/// a lease of `holder` (so that a holder whose etcd lease expired records nothing).
fn record_renewal(holder: &HolderId, id: i64, at: i64, retention: i64) -> Value {
    op::txn(
        vec![op::any_under(&keys::held_on(holder, id))],
        vec![op::put(&keys::renewal(id), &event(at, None), retention)],
    )
}

/// The lease `name` renewed at `at` under `token`, from its index key `kv`.
fn renewed(name: &LeaseName, token: FencingToken, kv: &KeyValue, at: i64) -> Result<Lease> {
    let value: RecordValue = serde_json::from_slice(&kv.value)
        .map_err(|err| malformed(format!("the index key of lease {name}: {err}")))?;
    let ttl = std::time::Duration::from_millis(value.ttl_ms);
    Ok(Lease {
        name: name.clone(),
        holder: Some(HolderId::new(&value.holder)?),
        token,
        acquired_at: StoreTime::from_millis(value.at),
        renewed_at: StoreTime::from_millis(at),
        expires_at: StoreTime::from_millis(at).saturating_add(ttl),
        ttl,
        released: None,
    })
}
