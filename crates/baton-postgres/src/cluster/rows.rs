//! Decoding cluster rows: nodes, node changes, batches with their tallies, and partitions.

use std::str::FromStr;

use baton_core::cluster::{
    BatchJob, BatchTally, JsonText, Node, NodeChange, Partition, PartitionKey,
};
use baton_core::{Error, ErrorKind, FencingToken, Result, StoreTime};
use sqlx::Row;
use sqlx::postgres::PgRow;

use crate::row;

/// A node from a row with the columns of `baton_nodes`.
pub(super) fn node(found: &PgRow) -> Result<Node> {
    Ok(Node {
        seq: row::id(found, "seq")?,
        id: parsed(found, "id", "node id")?,
        host: row::text(found, "host")?,
        version: row::text(found, "version")?,
        token: token(found, "token")?,
        started_at: instant(found, "started_at")?,
        heartbeat_at: instant(found, "heartbeat_at")?,
        load: narrow(found, "load")?,
        state: parsed(found, "state", "node state")?,
        state_changed_at: instant(found, "state_changed_at")?,
    })
}

/// A record of `baton_node_changes`.
pub(super) fn node_change(found: &PgRow) -> Result<NodeChange> {
    Ok(NodeChange {
        id: row::id(found, "id")?,
        node: parsed(found, "node", "node id")?,
        token: token(found, "token")?,
        from: parsed_optional(found, "from_state", "node state")?,
        to: parsed(found, "to_state", "node state")?,
        at: instant(found, "changed_at")?,
        reason: parsed(found, "reason", "node change reason")?,
    })
}

/// A batch from a row with the columns of `baton_batches`.
pub(super) fn batch(found: &PgRow) -> Result<BatchJob> {
    Ok(BatchJob {
        id: row::id(found, "id")?,
        name: parsed(found, "name", "job name")?,
        strategy: parsed(found, "strategy", "partition strategy")?,
        state: parsed(found, "state", "batch state")?,
        created_at: instant(found, "created_at")?,
        finished_at: row::instant(found, "finished_at")?,
        failure: read(found, "failure")?,
    })
}

/// The tally columns of `batch_tally.sql`.
pub(super) fn tally(found: &PgRow) -> Result<BatchTally> {
    let keys = row::texts(found, "failed_keys")?;
    let errors = row::texts(found, "failed_errors")?;
    let first_failed = keys
        .into_iter()
        .map(|key| stored::<PartitionKey>("partition key", key))
        .zip(errors)
        .map(|(key, error)| Ok((key?, error)))
        .collect::<Result<Vec<_>>>()?;
    Ok(BatchTally {
        unfinished: row::total(found, "unfinished")?,
        failed: row::total(found, "failed")?,
        first_failed,
    })
}

/// A partition from a row with the columns of `baton_partitions`.
pub(super) fn partition(found: &PgRow) -> Result<Partition> {
    let token: Option<i64> = read(found, "token")?;
    Ok(Partition {
        id: row::id(found, "id")?,
        batch: row::id(found, "batch")?,
        key: parsed(found, "key", "partition key")?,
        params: json(row::text(found, "params")?)?,
        transferable: row::flag(found, "transferable")?,
        state: parsed(found, "state", "partition state")?,
        node: parsed_optional(found, "node", "node id")?,
        token: token.map(FencingToken::from_store).transpose()?,
        checkpoint: read::<Option<String>>(found, "checkpoint")?.map(json).transpose()?,
        result: read::<Option<String>>(found, "result")?.map(json).transpose()?,
        attempts: narrow(found, "attempts")?,
        progress: row::total(found, "progress")?,
        created_at: instant(found, "created_at")?,
        claimed_at: row::instant(found, "claimed_at")?,
        heartbeat_at: row::instant(found, "heartbeat_at")?,
        finished_at: row::instant(found, "finished_at")?,
        error: read(found, "error")?,
    })
}

/// The partition a heartbeat stamped, from the `stamped_id` and `stamped_token` columns of
/// `node_heartbeat.sql` (`None` on the row of a heartbeat that stamped none).
pub(super) fn stamped(found: &PgRow) -> Result<Option<(i64, FencingToken)>> {
    let Some(id) = row::joined_id(found, "stamped_id")? else { return Ok(None) };
    Ok(Some((id, token(found, "stamped_token")?)))
}

/// A column of a type the shared row helpers do not read, such as a nullable text.
fn read<'r, T>(found: &'r PgRow, name: &str) -> Result<T>
where
    T: sqlx::Decode<'r, sqlx::Postgres> + sqlx::Type<sqlx::Postgres>,
{
    found.try_get(name).map_err(|err| {
        Error::new(ErrorKind::Internal, format!("reading column {name} from PostgreSQL: {err}"))
    })
}

fn instant(found: &PgRow, name: &str) -> Result<StoreTime> {
    read(found, name).map(StoreTime::from_millis)
}

fn token(found: &PgRow, name: &str) -> Result<FencingToken> {
    read(found, name).and_then(FencingToken::from_store)
}

/// A count column that must fit in a `u32`.
fn narrow(found: &PgRow, name: &str) -> Result<u32> {
    let value = row::total(found, name)?;
    u32::try_from(value).map_err(|_| corrupt(name, &value.to_string()))
}

fn parsed<T: FromStr>(found: &PgRow, name: &str, what: &str) -> Result<T> {
    stored(what, row::text(found, name)?)
}

fn parsed_optional<T: FromStr>(found: &PgRow, name: &str, what: &str) -> Result<Option<T>> {
    let text: Option<String> = read(found, name)?;
    text.map(|text| stored(what, text)).transpose()
}

fn stored<T: FromStr>(what: &str, text: String) -> Result<T> {
    text.parse().map_err(|_| corrupt(what, &text))
}

/// JSON text as stored; only a row written by something else than this crate can be refused.
fn json(text: String) -> Result<JsonText> {
    JsonText::new(text).map_err(|err| {
        Error::new(ErrorKind::Internal, format!("unexpected value stored in PostgreSQL: {err}"))
    })
}

fn corrupt(what: &str, value: &str) -> Error {
    Error::new(ErrorKind::Internal, format!("unexpected {what} {value:?} stored in PostgreSQL"))
}
