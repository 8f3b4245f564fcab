//! Listing every lease.

use std::collections::BTreeMap;

use baton_core::{Lease, LeaseName, Result};

use crate::keys::{self, HOLDERS, RECORDS, RELEASES, RENEWALS};
use crate::record::State;
use crate::store::Inner;
use crate::wire::{op, txn};

/// Every lease with a record, ordered by name: the four kinds of keys in one read.
pub(crate) async fn list(inner: &Inner) -> Result<Vec<Lease>> {
    let kinds = [RECORDS, HOLDERS, RENEWALS, RELEASES];
    let request =
        txn(vec![], kinds.iter().map(|kind| op::prefix(kind.as_bytes())).collect(), vec![]);
    let answer = inner.client.txn(&request, "listing leases").await?;
    let mut states: BTreeMap<LeaseName, State> = BTreeMap::new();
    for (index, kind) in kinds.iter().enumerate() {
        for kv in answer.range(index).kvs {
            let Some(name) = keys::name_in(&kv.key, kind) else { continue };
            let state = states.entry(name).or_default();
            match index {
                0 => state.record = Some(kv),
                1 => state.holder = Some(kv),
                2 => state.renewal = Some(kv),
                _ => state.release = Some(kv),
            }
        }
    }
    let mut leases = Vec::with_capacity(states.len());
    for (name, state) in &states {
        leases.extend(state.lease(name)?);
    }
    Ok(leases)
}
