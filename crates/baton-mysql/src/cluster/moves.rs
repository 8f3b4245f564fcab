//! Moves of partitions between nodes: the leader's rebalancing of pending partitions, the
//! record of every move (failovers included), and its listing.

use baton_core::cluster::row::PartitionMoveRow;
use baton_core::cluster::{
    BatchState, MoveReason, NodeId, NodeState, Partition, PartitionMove, PartitionMoveParams,
    PartitionMovesParams,
};
use baton_core::page::check_page_size;
use baton_core::{Cursor, Page, Result, StoreTime};
use sqlx::{MySqlConnection, MySqlPool};

use super::lists::{self, MOST_ROWS};
use super::partitions::read;
use super::rows::{BatchRow, NodeRow, decode_all};
use super::{Inner, now, tokens};
use crate::error::query_error;
use crate::queries::{
    BATCH_LOCK, NODE_SHARE, PARTITION_MOVE, PARTITION_MOVES, PARTITION_MOVES_INSERT,
    PARTITION_PENDING_OF,
};
use crate::tx::{self, Failure};
use crate::wakeups::{self, PENDING};

/// Moves the source's last pending partitions of a running batch to an active node, each under
/// a new token, and records the moves. The target's record is held in share mode and the batch
/// locked, so that neither changes state before the commit; the source's pending partitions of
/// the batch are locked in id order (their latest versions: one claimed or moved since is no
/// longer there); the tokens are drawn last.
pub(super) async fn move_pending(
    inner: &Inner,
    params: &PartitionMoveParams,
) -> Result<Vec<Partition>> {
    params.check()?;
    let doing = format!("moving partitions of batch {} to node {}", params.batch, params.to);
    let moved = tx::transaction!(&inner.pool, &doing, |conn| async {
        let target: Option<NodeRow> =
            sqlx::query_as(NODE_SHARE).bind(params.to.as_str()).fetch_optional(&mut *conn).await?;
        let target = target.map(NodeRow::into_node).transpose()?;
        let batch: Option<BatchRow> =
            sqlx::query_as(BATCH_LOCK).bind(params.batch).fetch_optional(&mut *conn).await?;
        let batch = batch.map(BatchRow::into_batch).transpose()?;
        let active = target.is_some_and(|node| node.state == NodeState::Active);
        if !active || !batch.is_some_and(|batch| batch.state == BatchState::Running) {
            return Ok(Vec::new());
        }
        let held: Vec<i64> = sqlx::query_scalar(PARTITION_PENDING_OF)
            .bind(params.from.as_str())
            .bind(params.batch)
            .fetch_all(&mut *conn)
            .await?;
        let movable = held.len().saturating_sub(params.keep as usize).min(params.count as usize);
        let ids = &held[held.len() - movable..];
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let tokens = tokens::draw(&mut *conn, ids.len()).await?;
        let statement = lists::cases(PARTITION_MOVE, ids.len());
        let mut update =
            sqlx::query(sqlx::AssertSqlSafe(statement)).persistent(false).bind(params.to.as_str());
        for (id, token) in ids.iter().zip(&tokens) {
            update = update.bind(id).bind(token.to_store());
        }
        for id in ids {
            update = update.bind(id);
        }
        update.execute(&mut *conn).await?;
        let moved = read(&mut *conn, ids).await?;
        let now = now(&mut *conn).await?;
        record(&mut *conn, moved.iter().zip(std::iter::repeat(&params.from)), params.reason, now)
            .await?;
        wakeups::raise(&mut *conn, PENDING).await?;
        Ok(moved)
    })?;
    if !moved.is_empty() {
        inner.bell.ring().await;
    }
    Ok(moved)
}

/// Records inside the caller's transaction that each partition (as it is now) moved from the
/// node paired with it, for `reason`, in order: one statement per [`MOST_ROWS`] moves.
pub(super) async fn record<'a>(
    conn: &mut MySqlConnection,
    moved: impl Iterator<Item = (&'a Partition, &'a NodeId)>,
    reason: MoveReason,
    now: StoreTime,
) -> Result<(), Failure> {
    let moved: Vec<(&Partition, &NodeId)> = moved.collect();
    for chunk in moved.chunks(MOST_ROWS) {
        let statement =
            lists::rows(PARTITION_MOVES_INSERT, "(?, ?, ?, ?, ?, ?, ?, ?)", chunk.len());
        let mut insert = sqlx::query(sqlx::AssertSqlSafe(statement)).persistent(false);
        for (partition, from) in chunk {
            // A failover's token is the previous claim's; the next claim issues the new one.
            let token = (reason != MoveReason::Failover).then_some(partition.token).flatten();
            insert = insert
                .bind(partition.batch)
                .bind(partition.id)
                .bind(partition.key.as_str())
                .bind(from.as_str())
                .bind(partition.node.as_ref().map(NodeId::as_str))
                .bind(reason.as_str())
                .bind(token.map(|token| token.to_store()))
                .bind(now.as_millis());
        }
        insert.execute(&mut *conn).await?;
    }
    Ok(())
}

/// One page of a batch's moves, oldest first.
pub(super) async fn list(
    pool: &MySqlPool,
    params: PartitionMovesParams,
) -> Result<Page<PartitionMove>> {
    let limit = check_page_size(params.limit)?;
    let doing = format!("listing the moves of batch {}", params.batch);
    let rows: Vec<PartitionMoveRow> = sqlx::query_as(PARTITION_MOVES)
        .bind(params.batch)
        .bind(params.after.map_or(0, Cursor::last_id))
        .bind(i64::from(limit) + 1)
        .fetch_all(pool)
        .await
        .map_err(|err| query_error(doing, err))?;
    Ok(Page::from_fetched(decode_all(rows, PartitionMoveRow::into_move)?, limit, |m| m.id))
}
