//! Listing every lease.

use std::collections::{BTreeMap, HashMap};

use baton_core::{Lease, LeaseName, Result};

use crate::keys::{self, HOLDERS, RECORDS, RELEASES, RENEWALS};
use crate::record::State;
use crate::store::Inner;
use crate::wire::{op, txn};

/// Every lease with a record, ordered by name: the four kinds of keys in one read (renewals
/// by the etcd lease that carries each term).
pub(crate) async fn list(inner: &Inner) -> Result<Vec<Lease>> {
    let kinds = [RECORDS, HOLDERS, RENEWALS, RELEASES];
    let request =
        txn(vec![], kinds.iter().map(|kind| op::prefix(kind.as_bytes())).collect(), vec![]);
    let answer = inner.client.txn(&request, "listing leases").await?;
    let mut states: BTreeMap<LeaseName, State> = BTreeMap::new();
    for (index, kind) in [(0, RECORDS), (1, HOLDERS), (3, RELEASES)] {
        for kv in answer.range(index).kvs {
            let Some(name) = keys::name_in(&kv.key, kind) else { continue };
            let state = states.entry(name).or_default();
            match index {
                0 => state.record = Some(kv),
                1 => state.holder = Some(kv),
                _ => state.release = Some(kv),
            }
        }
    }
    let renewals: HashMap<i64, _> = answer
        .range(2)
        .kvs
        .into_iter()
        .filter_map(|kv| Some((keys::renewal_id(&kv.key)?, kv)))
        .collect();
    let mut leases = Vec::with_capacity(states.len());
    for (name, state) in &mut states {
        if let Some(carrier) = state.carrier() {
            (state.renewal, state.renewal_of) = (renewals.get(&carrier).cloned(), carrier);
        }
        leases.extend(state.lease(name)?);
    }
    Ok(leases)
}
