//! Partition writes by the node running them: claims, and checkpoints, completion and failure
//! as compare-and-set on the claim's token.

use baton_core::cluster::{
    Partition, PartitionCheckpointParams, PartitionClaimParams, PartitionCompleteParams,
    PartitionFailParams, node_lost, partition_lost,
};
use baton_core::{FencingToken, JobName, Result};
use sqlx::query::QueryAs;
use sqlx::sqlite::SqliteArguments;
use sqlx::{Sqlite, SqliteConnection};

use super::rows::{PartitionRow, decode_all, stored_u64};
use super::{Inner, check_limit, mismatch, nodes, tokens};
use crate::error::from_sqlx;
use crate::json::{self, Rows};
use crate::tx;

/// A statement on one partition that answers the row it changed.
type PartitionQuery<'q> = QueryAs<'q, Sqlite, PartitionRow, SqliteArguments>;

/// Claims pending partitions of running batches assigned to the node or to no one, by id, up
/// to the limit, each under a new token: the node is checked and the partitions chosen (two
/// statements), then, when there are some, the tokens issued (two) and every claim written
/// (one).
pub(super) async fn claim(inner: &Inner, params: PartitionClaimParams) -> Result<Vec<Partition>> {
    let limit = check_limit("claim limit", params.limit)?;
    let doing = format!("claiming partitions for node {}", params.node);
    let mut tx = tx::begin(&inner.write, &doing).await?;
    let now = inner.now();
    let node = nodes::read(&mut tx, &params.node, &doing).await?;
    if !node.is_some_and(|node| node.state.is_live() && node.token == params.token) {
        tx::finish_unchanged(tx).await;
        return Err(node_lost(&params.node, params.token));
    }
    let ids = claimable(&mut tx, &params, limit, &doing).await?;
    if ids.is_empty() {
        tx::finish_unchanged(tx).await;
        return Ok(Vec::new());
    }
    let tokens = tokens::reserve(&mut tx, ids.len()).await?;
    let mut claims = Rows::default();
    for (id, token) in ids.iter().zip(tokens) {
        claims.push(&[(*id).into(), token.to_store().into()]);
    }
    let rows: Vec<PartitionRow> = sqlx::query_as(include_str!("../../queries/partition_claim.sql"))
        .bind(now.as_millis())
        .bind(params.node.as_str())
        .bind(claims.finish())
        .fetch_all(&mut *tx)
        .await
        .map_err(|err| from_sqlx(&doing, err))?;
    if rows.len() != ids.len() {
        return Err(mismatch(&doing, rows.len(), ids.len()));
    }
    let mut claimed = decode_all(rows, PartitionRow::into_partition)?;
    claimed.sort_by_key(|partition| partition.id);
    tx::commit(tx, &doing).await?;
    Ok(claimed)
}

/// The ids of the partitions a claim takes, in order.
async fn claimable(
    conn: &mut SqliteConnection,
    params: &PartitionClaimParams,
    limit: u32,
    doing: &str,
) -> Result<Vec<i64>> {
    let jobs =
        (!params.jobs.is_empty()).then(|| json::strings(params.jobs.iter().map(JobName::as_str)));
    sqlx::query_scalar(include_str!("../../queries/partition_claimable.sql"))
        .bind(params.node.as_str())
        .bind(jobs)
        .bind(i64::from(limit))
        .fetch_all(conn)
        .await
        .map_err(|err| from_sqlx(doing, err))
}

/// Replaces a claimed partition's checkpoint and progress: one statement.
pub(super) async fn checkpoint(
    inner: &Inner,
    params: PartitionCheckpointParams,
) -> Result<Partition> {
    let progress = stored_u64("progress", params.progress)?;
    let doing = format!("saving a checkpoint of partition {}", params.id);
    let query = include_str!("../../queries/partition_checkpoint.sql");
    write_claimed(inner, params.id, params.token, &doing, query, |query| {
        query.bind(params.checkpoint.as_str()).bind(progress)
    })
    .await
}

/// Completes a claimed partition with its result: one statement.
pub(super) async fn complete(inner: &Inner, params: PartitionCompleteParams) -> Result<Partition> {
    let doing = format!("completing partition {}", params.id);
    let query = include_str!("../../queries/partition_complete.sql");
    write_claimed(inner, params.id, params.token, &doing, query, |query| {
        query.bind(params.result.as_ref().map(|result| result.as_str()))
    })
    .await
}

/// Fails a claimed partition with its error, as stored: one statement.
pub(super) async fn fail(inner: &Inner, params: PartitionFailParams) -> Result<Partition> {
    let doing = format!("failing partition {}", params.id);
    let query = include_str!("../../queries/partition_fail.sql");
    write_claimed(inner, params.id, params.token, &doing, query, |query| {
        query.bind(params.stored_error())
    })
    .await
}

/// Runs `query` (`?1` now, `?2` the partition, `?3` the token, then what `bind` adds) in its
/// own write transaction; `LeaseLost`, changing nothing, when the partition is not claimed
/// under `token`.
async fn write_claimed<'q>(
    inner: &Inner,
    id: i64,
    token: FencingToken,
    doing: &str,
    query: &'static str,
    bind: impl FnOnce(PartitionQuery<'q>) -> PartitionQuery<'q>,
) -> Result<Partition> {
    let mut tx = tx::begin(&inner.write, doing).await?;
    let now = inner.now();
    let query = sqlx::query_as(query).bind(now.as_millis()).bind(id).bind(token.to_store());
    let row: Option<PartitionRow> =
        bind(query).fetch_optional(&mut *tx).await.map_err(|err| from_sqlx(doing, err))?;
    let Some(row) = row else {
        tx::finish_unchanged(tx).await;
        return Err(partition_lost(id, token));
    };
    let partition = row.into_partition()?;
    tx::commit(tx, doing).await?;
    Ok(partition)
}
