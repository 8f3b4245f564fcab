//! Reading leases and their leader changes: one key, or every key under the prefix's
//! `leases/` folder in one recursive read.

use baton_core::page::check_page_size;
use baton_core::{HistoryParams, LeaderChange, Lease, LeaseName, Page, Result};

use crate::keys;
use crate::record::Stored;
use crate::store::Inner;

/// Reads the key of lease `name`.
pub(crate) async fn read(inner: &Inner, name: &LeaseName) -> Result<Option<Stored>> {
    let key = keys::lease_key(&inner.consul.target.prefix, name);
    inner.consul.read(&key).await?.map(Stored::read).transpose()
}

/// Reads one lease as its key states it.
pub(crate) async fn get(inner: &Inner, name: &LeaseName) -> Result<Option<Lease>> {
    read(inner, name).await?.map(|stored| stored.lease(name)).transpose()
}

/// Every lease key with its lease name, ordered by name.
async fn all(inner: &Inner) -> Result<Vec<(LeaseName, Stored)>> {
    let prefix = &inner.consul.target.prefix;
    let (entries, _) = inner.consul.read_prefix(&keys::folder(prefix), None).await?;
    let mut stored = Vec::with_capacity(entries.len());
    for entry in entries {
        stored.push((keys::lease_name(prefix, &entry.key)?, Stored::read(entry)?));
    }
    stored.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(stored)
}

/// Reads every lease, ordered by name.
pub(crate) async fn list(inner: &Inner) -> Result<Vec<Lease>> {
    all(inner).await?.iter().map(|(name, stored)| stored.lease(name)).collect()
}

/// Reads one page of leader changes, ordered by token: those kept in one lease's record, or in
/// every record (one recursive read).
pub(crate) async fn history(inner: &Inner, params: HistoryParams) -> Result<Page<LeaderChange>> {
    let limit = check_page_size(params.limit)?;
    let stored = match &params.lease {
        Some(name) => {
            read(inner, name).await?.map(|stored| (name.clone(), stored)).into_iter().collect()
        }
        None => all(inner).await?,
    };
    let after = params.after.map_or(0, |cursor| cursor.last_id());
    let mut changes = Vec::new();
    for (name, stored) in &stored {
        changes.extend(stored.leader_changes(name)?.into_iter().filter(|change| change.id > after));
    }
    changes.sort_by_key(|change| change.id);
    changes.truncate(limit as usize + 1);
    Ok(Page::from_fetched(changes, limit, |change| change.id))
}
