//! Reading leases and their leader changes: one lease blob, or every lease blob of the
//! container (one listing with metadata; the history reads each blob's content).

use baton_core::page::check_page_size;
use baton_core::{HistoryParams, LeaderChange, Lease, LeaseName, Page, Result};

use crate::client::Listed;
use crate::names::{self, LEASE_PREFIX};
use crate::record::{self, Record};
use crate::store::Inner;

/// Reads one lease as its blob states it.
pub(crate) async fn get(inner: &Inner, name: &LeaseName) -> Result<Option<Lease>> {
    let blob = inner
        .client
        .read(&names::blob_name(name), false)
        .await
        .map_err(|f| f.into_error(&format!("reading lease {name}")))?;
    match blob {
        Some(blob) => Record::read(&blob.metadata)?.lease(name, blob.lease),
        None => Ok(None),
    }
}

/// Every lease blob of the container with its lease name, ordered by name.
async fn listed(inner: &Inner) -> Result<Vec<(LeaseName, Listed)>> {
    let mut all = Vec::new();
    let mut marker = None;
    loop {
        let (blobs, next) = inner
            .client
            .list(LEASE_PREFIX, marker.as_deref())
            .await
            .map_err(|f| f.into_error("listing lease blobs"))?;
        all.extend(
            blobs.into_iter().filter_map(|blob| Some((names::lease_name(&blob.name)?, blob))),
        );
        match next {
            Some(next) => marker = Some(next),
            None => break,
        }
    }
    all.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(all)
}

/// Reads every lease, ordered by name.
pub(crate) async fn list(inner: &Inner) -> Result<Vec<Lease>> {
    let mut leases = Vec::new();
    for (name, blob) in listed(inner).await? {
        leases.extend(Record::read(&blob.metadata)?.lease(&name, blob.lease)?);
    }
    Ok(leases)
}

/// Reads one page of leader changes ordered by token (tokens of different lease blobs never
/// coincide: each blob has an epoch of its own): those kept on one lease blob, or on every
/// lease blob of the container (a read of them all, meant for operators).
pub(crate) async fn history(inner: &Inner, params: HistoryParams) -> Result<Page<LeaderChange>> {
    let limit = check_page_size(params.limit)?;
    let names = match &params.lease {
        Some(name) => vec![name.clone()],
        None => listed(inner).await?.into_iter().map(|(name, _)| name).collect(),
    };
    let after = params.after.map_or(0, |cursor| cursor.last_id());
    let mut changes = Vec::new();
    for name in names {
        let blob = inner
            .client
            .read(&names::blob_name(&name), true)
            .await
            .map_err(|f| f.into_error(&format!("reading the history of lease {name}")))?;
        let Some(blob) = blob else { continue };
        for change in record::history(&blob.content)? {
            let change = change.leader_change(&name)?;
            if change.id > after {
                changes.push(change);
            }
        }
    }
    changes.sort_by_key(|change| change.id);
    changes.truncate(limit as usize + 1);
    Ok(Page::from_fetched(changes, limit, |change| change.id))
}
