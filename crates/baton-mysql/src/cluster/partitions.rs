//! Partition writes by the node running them: claims, and checkpoints, completion and failure
//! as compare-and-set on the claim's token.

use baton_core::cluster::{
    Partition, PartitionCheckpointParams, PartitionClaimParams, PartitionCompleteParams,
    PartitionFailParams, node_lost, partition_lost,
};
use baton_core::{FencingToken, JobName, Result};
use sqlx::MySqlConnection;
use sqlx::mysql::MySqlArguments;
use sqlx::query::Query;

use super::lists;
use super::rows::{NodeRow, PartitionRow, decode_all, stored_u64};
use super::{Inner, now, tokens};
use crate::queries::{
    BATCH_RUNNING_OF_JOBS, NODE_SHARE, PARTITION_CHECKPOINT, PARTITION_CLAIM, PARTITION_CLAIMABLE,
    PARTITION_COMPLETE, PARTITION_FAIL, PARTITION_READ,
};
use crate::tx::{self, Failure};

/// Claims pending partitions of running batches assigned to the node or to no one, by id, up
/// to the limit, each under a new token. The node's record is held in share mode from the check
/// that it is active under its token until commit; the partitions are locked with SKIP LOCKED
/// (those assigned to it, then unassigned ones, each cut at the limit); the tokens are drawn
/// last.
pub(super) async fn claim(
    inner: &Inner,
    params: &PartitionClaimParams,
    limit: u32,
) -> Result<Vec<Partition>> {
    let doing = format!("claiming partitions for node {}", params.node);
    tx::transaction!(&inner.pool, &doing, |conn| async {
        let node: Option<NodeRow> = sqlx::query_as(NODE_SHARE)
            .bind(params.node.as_str())
            .fetch_optional(&mut *conn)
            .await?;
        let node = node.map(NodeRow::into_node).transpose()?;
        if !node.is_some_and(|node| node.state.is_live() && node.token == params.token) {
            return Err(node_lost(&params.node, params.token).into());
        }
        let batches = match params.jobs.is_empty() {
            true => None,
            false => Some(running_batches(&mut *conn, &params.jobs).await?),
        };
        let mut ids = Vec::new();
        if batches.as_ref().is_none_or(|batches| !batches.is_empty()) {
            for node in [Some(params.node.as_str()), None] {
                ids.extend(claimable(&mut *conn, node, batches.as_deref(), limit).await?);
            }
        }
        ids.sort_unstable();
        ids.truncate(limit as usize);
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let tokens = tokens::draw(&mut *conn, ids.len()).await?;
        let now = now(&mut *conn).await?;
        let statement = lists::cases(PARTITION_CLAIM, ids.len());
        let mut update = sqlx::query(sqlx::AssertSqlSafe(statement))
            .persistent(false)
            .bind(params.node.as_str());
        for (id, token) in ids.iter().zip(&tokens) {
            update = update.bind(id).bind(token.to_store());
        }
        update = update.bind(now.as_millis()).bind(now.as_millis());
        for id in &ids {
            update = update.bind(id);
        }
        update.execute(&mut *conn).await?;
        read(&mut *conn, &ids).await
    })
}

/// The running batches of the jobs named (a plain read).
async fn running_batches(
    conn: &mut MySqlConnection,
    jobs: &[JobName],
) -> Result<Vec<i64>, Failure> {
    let statement = lists::ids(BATCH_RUNNING_OF_JOBS, jobs.len());
    let mut query = sqlx::query_scalar(sqlx::AssertSqlSafe(statement)).persistent(false);
    for job in jobs {
        query = query.bind(job.as_str());
    }
    query.fetch_all(conn).await.map_err(Failure::from)
}

/// Locks up to `limit` pending partitions assigned to `node` (`None`: to no one), of `batches`
/// when given, lowest id first, skipping those locked by others.
async fn claimable(
    conn: &mut MySqlConnection,
    node: Option<&str>,
    batches: Option<&[i64]>,
    limit: u32,
) -> Result<Vec<i64>, Failure> {
    let listed = batches.map_or(1, <[i64]>::len);
    let statement = lists::ids(PARTITION_CLAIMABLE, listed);
    let mut query = sqlx::query_scalar(sqlx::AssertSqlSafe(statement))
        .persistent(false)
        .bind(node)
        .bind(batches.is_none());
    match batches {
        Some(batches) => {
            for batch in batches {
                query = query.bind(batch);
            }
        }
        None => query = query.bind(None::<i64>),
    }
    query.bind(i64::from(limit)).fetch_all(conn).await.map_err(Failure::from)
}

/// Reads the listed partitions, by id.
pub(super) async fn read(
    conn: &mut MySqlConnection,
    ids: &[i64],
) -> Result<Vec<Partition>, Failure> {
    let statement = lists::ids(PARTITION_READ, ids.len());
    let mut query =
        sqlx::query_as::<_, PartitionRow>(sqlx::AssertSqlSafe(statement)).persistent(false);
    for id in ids {
        query = query.bind(id);
    }
    let rows = query.fetch_all(conn).await?;
    Ok(decode_all(rows, PartitionRow::into_partition)?)
}

/// Replaces a claimed partition's checkpoint and progress.
pub(super) async fn checkpoint(
    inner: &Inner,
    params: &PartitionCheckpointParams,
) -> Result<Partition> {
    let progress = stored_u64("progress", params.progress)?;
    let doing = format!("saving a checkpoint of partition {}", params.id);
    let (id, token) = (params.id, params.token);
    tx::transaction!(&inner.pool, &doing, |conn| async {
        let query =
            sqlx::query(PARTITION_CHECKPOINT).bind(params.checkpoint.as_str()).bind(progress);
        write_claimed(conn, id, token, query).await
    })
}

/// Completes a claimed partition with its result.
pub(super) async fn complete(inner: &Inner, params: &PartitionCompleteParams) -> Result<Partition> {
    let doing = format!("completing partition {}", params.id);
    let result = params.result.as_ref().map(|result| result.as_str());
    tx::transaction!(&inner.pool, &doing, |conn| async {
        let query = sqlx::query(PARTITION_COMPLETE).bind(result);
        write_claimed(conn, params.id, params.token, query).await
    })
}

/// Fails a claimed partition with its error, as stored.
pub(super) async fn fail(inner: &Inner, params: &PartitionFailParams) -> Result<Partition> {
    let doing = format!("failing partition {}", params.id);
    let error = params.stored_error();
    tx::transaction!(&inner.pool, &doing, |conn| async {
        let query = sqlx::query(PARTITION_FAIL).bind(error);
        write_claimed(conn, params.id, params.token, query).await
    })
}

/// Runs a compare-and-set `query` (its own arguments bound, then the partition and the token)
/// and reads the partition back in the same transaction; `LeaseLost`, changing nothing, when the
/// partition is not claimed under `token`.
async fn write_claimed<'q>(
    conn: &mut MySqlConnection,
    id: i64,
    token: FencingToken,
    query: Query<'q, sqlx::MySql, MySqlArguments>,
) -> Result<Partition, Failure> {
    let done = query.bind(id).bind(token.to_store()).execute(&mut *conn).await?;
    if done.rows_affected() == 0 {
        return Err(partition_lost(id, token).into());
    }
    let partition =
        read(&mut *conn, &[id]).await?.pop().ok_or_else(|| partition_lost(id, token))?;
    Ok(partition)
}
