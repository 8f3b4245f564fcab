//! Reading leases and their leader changes, always strongly consistent: one lease item, every
//! lease item (one Query on their shared partition), or the history of one or every lease.

use baton_core::page::check_page_size;
use baton_core::{HistoryParams, LeaderChange, Lease, LeaseName, Page, Result};

use crate::keys;
use crate::record::Record;
use crate::store::Inner;
use crate::{history, tokens::Counter};

/// Reads one lease item.
pub(crate) async fn read(inner: &Inner, name: &LeaseName) -> Result<Option<Record>> {
    let item = inner
        .dynamo
        .get(keys::lease(name.as_str()))
        .await
        .map_err(|failure| failure.into_error(&format!("reading lease {name}")))?;
    item.as_ref().map(Record::read).transpose()
}

/// Reads one lease's token counter.
pub(crate) async fn counter(inner: &Inner, name: &LeaseName) -> Result<Counter> {
    let item = inner.dynamo.get(keys::counter(name.as_str())).await.map_err(|failure| {
        failure.into_error(&format!("reading the token counter of lease {name}"))
    })?;
    Counter::read(item.as_ref())
}

/// Reads one lease as its record states it.
pub(crate) async fn get(inner: &Inner, name: &LeaseName) -> Result<Option<Lease>> {
    read(inner, name).await?.map(|record| record.lease(name)).transpose()
}

/// Every lease item, with its name, ordered by name.
async fn records(inner: &Inner) -> Result<Vec<(LeaseName, Record)>> {
    let items = inner
        .dynamo
        .query(keys::LEASES)
        .await
        .map_err(|failure| failure.into_error("listing leases"))?;
    let mut records = Vec::with_capacity(items.len());
    for item in &items {
        let name = keys::get_s(item, keys::SK)?.unwrap_or_default();
        records.push((LeaseName::new(name)?, Record::read(item)?));
    }
    records.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(records)
}

/// Reads every lease, ordered by name.
pub(crate) async fn list(inner: &Inner) -> Result<Vec<Lease>> {
    records(inner).await?.iter().map(|(name, record)| record.lease(name)).collect()
}

/// Reads one page of leader changes, ordered by token: those of one lease (one Query), or of
/// every lease (a Query per lease, meant for operators).
pub(crate) async fn history(inner: &Inner, params: HistoryParams) -> Result<Page<LeaderChange>> {
    let limit = check_page_size(params.limit)?;
    let names = match params.lease {
        Some(name) => vec![name],
        None => records(inner).await?.into_iter().map(|(name, _)| name).collect(),
    };
    let after = params.after.map_or(0, |cursor| cursor.last_id());
    let mut changes = Vec::new();
    for name in &names {
        let items = inner.dynamo.query(&keys::history_partition(name.as_str())).await.map_err(
            |failure| failure.into_error(&format!("reading the history of lease {name}")),
        )?;
        for item in &items {
            let change = history::read(name, item)?;
            if change.id > after {
                changes.push(change);
            }
        }
    }
    changes.sort_by_key(|change| change.id);
    changes.truncate(limit as usize + 1);
    Ok(Page::from_fetched(changes, limit, |change| change.id))
}
