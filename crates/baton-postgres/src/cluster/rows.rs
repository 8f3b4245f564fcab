//! Decoding cluster rows: nodes, node changes, batches with their tallies, and partitions.

use std::str::FromStr;

use baton_core::cluster::row::{BatchRow, NodeChangeRow, NodeRow, PartitionMoveRow, PartitionRow};
use baton_core::cluster::{
    BatchJob, BatchTally, Node, NodeChange, Partition, PartitionKey, PartitionMove,
};
use baton_core::{Error, ErrorKind, FencingToken, Result};
use sqlx::postgres::PgRow;
use sqlx::{FromRow, Row};

use crate::row;

/// A node from a row with the columns of `baton_nodes`.
pub(super) fn node(found: &PgRow) -> Result<Node> {
    NodeRow::from_row(found).map_err(row::unreadable)?.into_node()
}

/// A record of `baton_node_changes`.
pub(super) fn node_change(found: &PgRow) -> Result<NodeChange> {
    NodeChangeRow::from_row(found).map_err(row::unreadable)?.into_change()
}

/// A batch from a row with the columns of `baton_batches`.
pub(super) fn batch(found: &PgRow) -> Result<BatchJob> {
    BatchRow::from_row(found).map_err(row::unreadable)?.into_batch()
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
    PartitionRow::from_row(found).map_err(row::unreadable)?.into_partition()
}

/// A record of `baton_partition_moves`.
pub(super) fn partition_move(found: &PgRow) -> Result<PartitionMove> {
    PartitionMoveRow::from_row(found).map_err(row::unreadable)?.into_move()
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

fn token(found: &PgRow, name: &str) -> Result<FencingToken> {
    read(found, name).and_then(FencingToken::from_store)
}

fn stored<T: FromStr>(what: &str, text: String) -> Result<T> {
    text.parse().map_err(|_| corrupt(what, &text))
}

fn corrupt(what: &str, value: &str) -> Error {
    Error::new(ErrorKind::Internal, format!("unexpected {what} {value:?} stored in PostgreSQL"))
}
