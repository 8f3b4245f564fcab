//! Reading leases and their leader changes: one object, or every Lease baton wrote in the
//! namespace (by its label).

use baton_core::page::check_page_size;
use baton_core::{HistoryParams, LeaderChange, Lease, LeaseName, Page, Result};

use crate::names::{self, TOKENS_OBJECT};
use crate::record::Record;
use crate::store::Inner;

/// Reads one Lease object.
pub(crate) async fn read(inner: &Inner, name: &str) -> Result<Option<Record>> {
    let object = inner
        .kube
        .get(name)
        .await
        .map_err(|failure| failure.into_error(&format!("reading lease {name}")))?;
    object.map(Record::read).transpose()
}

/// Reads one lease as its record states it.
pub(crate) async fn get(inner: &Inner, name: &LeaseName) -> Result<Option<Lease>> {
    let object_name = names::object_name(name)?;
    read(inner, object_name).await?.map(|record| record.lease(name)).transpose()
}

/// Every Lease baton wrote in the namespace, with its name, ordered by name.
async fn records(inner: &Inner) -> Result<Vec<(LeaseName, Record)>> {
    let (objects, _) =
        inner.kube.list().await.map_err(|failure| failure.into_error("listing leases"))?;
    let mut records = Vec::with_capacity(objects.len());
    for object in objects {
        let Some(name) = object.metadata.name.clone().filter(|name| name != TOKENS_OBJECT) else {
            continue;
        };
        records.push((LeaseName::new(name)?, Record::read(object)?));
    }
    records.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(records)
}

/// Reads every lease, ordered by name.
pub(crate) async fn list(inner: &Inner) -> Result<Vec<Lease>> {
    records(inner).await?.iter().map(|(name, record)| record.lease(name)).collect()
}

/// Reads one page of leader changes, ordered by token: those kept on one Lease, or on every
/// Lease of the namespace (a read of them all, meant for operators).
pub(crate) async fn history(inner: &Inner, params: HistoryParams) -> Result<Page<LeaderChange>> {
    let limit = check_page_size(params.limit)?;
    let records = match &params.lease {
        Some(name) => {
            let record = read(inner, names::object_name(name)?).await?;
            record.map(|record| (name.clone(), record)).into_iter().collect()
        }
        None => records(inner).await?,
    };
    let after = params.after.map_or(0, |cursor| cursor.last_id());
    let mut changes = Vec::new();
    for (name, record) in &records {
        for change in record.history()? {
            let change = change.leader_change(name)?;
            if change.id > after {
                changes.push(change);
            }
        }
    }
    changes.sort_by_key(|change| change.id);
    changes.truncate(limit as usize + 1);
    Ok(Page::from_fetched(changes, limit, |change| change.id))
}
