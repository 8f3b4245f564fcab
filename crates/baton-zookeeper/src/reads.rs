//! Reading leases and the ensemble's clock.

use baton_core::{LeaseName, Result, StoreTime};
use zookeeper_client::{Client, Error as ZkError, MultiReadResult, OneshotWatcher};

use crate::paths::{self, CLOCK, LEASES};
use crate::record::{Current, Record, State, Term, decode};
use crate::session::Session;

/// A lease as its nodes show it, `None` if it has no record, and, when `watch`, a watch that
/// fires when the record changes.
pub(crate) async fn current(
    session: &Session,
    client: &Client,
    name: &LeaseName,
    watch: bool,
) -> Result<(Option<Current>, Option<OneshotWatcher>)> {
    let path = paths::record(name);
    let read = match watch {
        true => client.get_and_watch_data(&path).await.map(|(d, s, w)| (d, s, Some(w))),
        false => client.get_data(&path).await.map(|(d, s)| (d, s, None)),
    };
    let (data, stat, watcher) = match read {
        Ok(read) => read,
        Err(ZkError::NoNode) => return Ok((None, None)),
        Err(err) => return Err(session.error(format!("reading lease {name}"), &err)),
    };
    let record: Record = decode(&path, &data)?;
    let term = match record.state {
        State::Held => term(session, client, name, &record).await?,
        _ => None,
    };
    Ok((Some(Current::new(name, record, &stat, term)?), watcher))
}

async fn term(
    session: &Session,
    client: &Client,
    name: &LeaseName,
    record: &Record,
) -> Result<Option<Term>> {
    let holder = baton_core::HolderId::new(&record.holder).map_err(crate::record::malformed)?;
    let path = paths::term(name, &holder);
    client
        .check_stat(&path)
        .await
        .map(|stat| stat.as_ref().map(Term::from))
        .map_err(|err| session.error(format!("reading the term of lease {name}"), &err))
}

/// Brings the connected member up to date with the leader, so that the next read is not stale.
pub(crate) async fn sync(session: &Session, client: &Client) -> Result<()> {
    client.sync("/").await.map_err(|err| session.error("syncing with the leader", &err))
}

/// The ensemble's clock: the modification time of a write to the clock node.
pub(crate) async fn now(session: &Session) -> Result<StoreTime> {
    let client = session.client().await?;
    let stat = match client.set_data(CLOCK, b"", None).await {
        Err(ZkError::NoNode) => {
            session.ensure_base(&client).await?;
            client.set_data(CLOCK, b"", None).await
        }
        other => other,
    }
    .map_err(|err| session.error("reading the ensemble's clock", &err))?;
    session.observe(stat.mtime);
    Ok(StoreTime::from_millis(stat.mtime))
}

/// The names of every lease with a record, sorted.
pub(crate) async fn names(session: &Session, client: &Client) -> Result<Vec<LeaseName>> {
    let mut names: Vec<LeaseName> = match client.list_children(LEASES).await {
        Ok(children) => children.iter().filter_map(|child| paths::lease_of(child)).collect(),
        Err(ZkError::NoNode) => Vec::new(),
        Err(err) => return Err(session.error("listing leases", &err)),
    };
    names.sort();
    Ok(names)
}

/// Every lease record, ordered by name: the records in one request, then the terms of the
/// held ones in another.
pub(crate) async fn all(session: &Session) -> Result<Vec<baton_core::Lease>> {
    let client = session.client().await?;
    sync(session, &client).await?;
    let names = names(session, &client).await?;
    let mut reader = client.new_multi_reader();
    for name in &names {
        reader.add_get_data(&paths::record(name)).map_err(|e| session.error("listing", &e))?;
    }
    let records =
        reader.commit().await.map_err(|err| session.error("reading lease records", &err))?;
    let mut found = Vec::new();
    for (name, result) in names.into_iter().zip(records) {
        if let MultiReadResult::Data { data, stat } = result {
            found.push((name.clone(), decode::<Record>(&paths::record(&name), &data)?, stat));
        }
    }
    let mut reader = client.new_multi_reader();
    for (name, record, _) in &found {
        let holder = baton_core::HolderId::new(&record.holder).map_err(crate::record::malformed)?;
        reader
            .add_get_data(&paths::term(name, &holder))
            .map_err(|e| session.error("listing", &e))?;
    }
    let terms = match found.is_empty() {
        true => Vec::new(),
        false => reader.commit().await.map_err(|err| session.error("reading terms", &err))?,
    };
    found
        .into_iter()
        .zip(terms)
        .map(|((name, record, stat), term)| {
            let term = match (record.state, term) {
                (State::Held, MultiReadResult::Data { stat, .. }) => Some(Term::from(&stat)),
                _ => None,
            };
            Current::new(&name, record, &stat, term).map(|current| current.lease)
        })
        .collect()
}
