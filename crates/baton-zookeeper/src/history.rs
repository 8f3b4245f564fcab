//! The leader-change history: persistent change records under each lease's record, numbered
//! by generation and trimmed to [`HISTORY_LENGTH`](crate::HISTORY_LENGTH). A change's position
//! is its node's `czxid`, which is also the token of the acquisition that wrote it.
//!
//! One lease's history is one listing and one multi-read; the history of every lease reads each
//! lease in turn: it is meant for operators, not for a hot path.

use baton_core::page::check_page_size;
use baton_core::{Cursor, HistoryParams, LeaderChange, LeaseName, Page, Result};
use zookeeper_client::{Client, Error as ZkError, MultiReadResult};

use crate::paths;
use crate::reads;
use crate::record::leader_change;
use crate::session::Session;

/// Reads one page of the history.
pub(crate) async fn read(session: &Session, params: HistoryParams) -> Result<Page<LeaderChange>> {
    let limit = check_page_size(params.limit)? as usize;
    let client = session.client().await?;
    reads::sync(session, &client).await?;
    let names = match params.lease {
        Some(name) => vec![name],
        None => reads::names(session, &client).await?,
    };
    let after = params.after.map_or(i64::MIN, Cursor::last_id);
    let mut changes = Vec::new();
    for name in &names {
        changes
            .extend(of_lease(session, &client, name).await?.into_iter().filter(|c| c.id > after));
    }
    changes.sort_by_key(|change| change.id);
    let next = (changes.len() > limit).then(|| Cursor::after(changes[limit - 1].id));
    changes.truncate(limit);
    Ok(Page { items: changes, next })
}

/// Every change record of one lease.
async fn of_lease(
    session: &Session,
    client: &Client,
    name: &LeaseName,
) -> Result<Vec<LeaderChange>> {
    let record = paths::record(name);
    let mut children = match client.list_children(&record).await {
        Ok(children) => children,
        Err(ZkError::NoNode) => return Ok(Vec::new()),
        Err(err) => return Err(session.error(format!("listing the history of {name}"), &err)),
    };
    children.retain(|child| paths::is_change(child));
    if children.is_empty() {
        return Ok(Vec::new());
    }
    let paths: Vec<String> = children.iter().map(|child| format!("{record}/{child}")).collect();
    let mut reader = client.new_multi_reader();
    for path in &paths {
        reader.add_get_data(path).map_err(|err| session.error("reading the history", &err))?;
    }
    let results = reader
        .commit()
        .await
        .map_err(|err| session.error(format!("reading the history of {name}"), &err))?;
    let mut changes = Vec::with_capacity(results.len());
    for (path, result) in paths.iter().zip(results) {
        // A record trimmed between the listing and the read is simply gone.
        if let MultiReadResult::Data { data, stat } = result {
            changes.push(leader_change(name, path, &data, &stat)?);
        }
    }
    Ok(changes)
}
