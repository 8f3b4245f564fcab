//! Renewing leases: one transaction checks that the holder still holds each lease under its
//! token and records the renewal, while one keep-alive request extends the etcd leases that
//! carry them.

use std::collections::HashSet;

use baton_core::{FencingToken, HolderId, Lease, LeaseName, Result, StoreTime};
use serde_json::Value;

use crate::error::malformed;
use crate::keys::LeaseKeys;
use crate::record::{RecordValue, event, now_ms};
use crate::release;
use crate::store::Inner;
use crate::wire::{TxnResponse, op, txn};

/// Leases renewed per transaction. etcd takes at most 128 operations in a transaction
/// (`--max-txn-ops`), and a nested transaction only what its parent leaves: each lease is one
/// nested transaction of [`OPS_PER_CHECK`] operations, so at most 125 fit; 100 leaves room.
const PER_TXN: usize = 100;

/// The most operations on one side of a lease's nested transaction (see [`check`]).
const OPS_PER_CHECK: usize = 3;

const _: () = assert!(PER_TXN + OPS_PER_CHECK <= 128, "etcd refuses the transaction");

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
    let checks = async {
        let mut answers = Vec::new();
        for chunk in leases.chunks(PER_TXN) {
            let request = txn(
                vec![],
                chunk.iter().map(|(name, token)| check(holder, name, *token, at)).collect(),
                vec![],
            );
            answers.push(
                inner.client.txn(&request, format!("renewing the leases of {holder}")).await?,
            );
        }
        Ok::<_, baton_core::Error>(answers)
    };
    let keep_known = async {
        match known.is_empty() {
            true => Ok(Vec::new()),
            false => inner.client.keep_alive(&known).await,
        }
    };
    let (answers, kept) = tokio::join!(checks, keep_known);
    let answers = answers?;
    let mut alive: HashSet<i64> =
        kept?.into_iter().filter(|answer| answer.ttl > 0).map(|answer| answer.id).collect();
    let renewed = renewed(&answers, leases, at)?;
    let unknown: Vec<i64> = renewed
        .iter()
        .flatten()
        .map(|(_, id)| *id)
        .filter(|id| !known.contains(id))
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    if !unknown.is_empty() {
        alive.extend(
            inner
                .client
                .keep_alive(&unknown)
                .await?
                .into_iter()
                .filter(|a| a.ttl > 0)
                .map(|a| a.id),
        );
    }
    for id in known.iter().filter(|id| !alive.contains(id)) {
        inner.sessions.forget(*id);
    }
    Ok(renewed
        .into_iter()
        .map(|renewed| renewed.filter(|(_, id)| alive.contains(id)).map(|(lease, _)| lease))
        .collect())
}

/// A nested transaction that records a renewal at `at` if `holder` holds `name` under `token`,
/// and reads the record and the holder key.
fn check(holder: &HolderId, name: &LeaseName, token: FencingToken, at: i64) -> Value {
    let keys = LeaseKeys::of(name);
    op::txn(
        vec![
            op::created_at(&keys.holder, token.to_store()),
            op::holds(&keys.holder, holder.as_str().as_bytes()),
        ],
        vec![
            op::get(&keys.record),
            op::get(&keys.holder),
            op::put(&keys.renewal, &event(at, None), 0),
        ],
    )
}

/// Each lease as renewed with the etcd lease carrying it, or `None` where the check failed.
fn renewed(
    answers: &[TxnResponse],
    leases: &[(LeaseName, FencingToken)],
    at: i64,
) -> Result<Vec<Option<(Lease, i64)>>> {
    let nested: Vec<_> = answers.iter().flat_map(|answer| &answer.responses).collect();
    if nested.len() != leases.len() {
        return Err(malformed(format!(
            "{} answers renewing {} leases",
            nested.len(),
            leases.len()
        )));
    }
    let mut renewed = Vec::with_capacity(leases.len());
    for ((name, token), answer) in leases.iter().zip(nested) {
        let Some(answer) = answer.response_txn.as_ref().filter(|answer| answer.succeeded) else {
            renewed.push(None);
            continue;
        };
        let (Some(record), Some(holder)) = (answer.first(0), answer.first(1)) else {
            return Err(malformed(format!("lease {name} renewed without its record")));
        };
        let value: RecordValue = serde_json::from_slice(&record.value)
            .map_err(|err| malformed(format!("the record of lease {name}: {err}")))?;
        let ttl = std::time::Duration::from_millis(value.ttl_ms);
        let lease = Lease {
            name: name.clone(),
            holder: Some(HolderId::new(&value.holder)?),
            token: *token,
            acquired_at: StoreTime::from_millis(value.at),
            renewed_at: StoreTime::from_millis(at),
            expires_at: StoreTime::from_millis(at).saturating_add(ttl),
            ttl,
            released: None,
        };
        renewed.push(Some((lease, holder.lease)));
    }
    Ok(renewed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_check_fits_the_operations_counted_for_it() {
        let holder = HolderId::new("h").unwrap();
        let name = LeaseName::new("l").unwrap();
        let check = check(&holder, &name, FencingToken::from_store(7).unwrap(), 0);
        let txn = &check["request_txn"];
        let widest = ["compare", "success", "failure"]
            .iter()
            .map(|side| txn[side].as_array().map_or(0, Vec::len))
            .max()
            .unwrap();
        assert_eq!(widest, OPS_PER_CHECK);
    }
}
