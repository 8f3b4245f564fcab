//! Moves of partitions between nodes: the leader's rebalancing of pending partitions, the
//! record of every move (failovers included), and its listing.

use baton_core::cluster::{
    MoveReason, NodeId, Partition, PartitionMove, PartitionMoveParams, PartitionMovesParams,
    row::PartitionMoveRow,
};
use baton_core::page::check_page_size;
use baton_core::{Cursor, FencingToken, Page, Result, StoreTime};
use sqlx::{SqliteConnection, SqlitePool};

use super::rows::{PartitionRow, decode_all};
use super::{Inner, mismatch, tokens};
use crate::error::from_sqlx;
use crate::json::{Cell, Rows};
use crate::tx;

/// Moves the source's last pending partitions of a running batch to an active node, each under
/// a new token, and records the moves: one statement chooses them (checking the batch and the
/// target), and when there are some, two issue the tokens, one moves them and one records.
pub(super) async fn move_pending(
    inner: &Inner,
    params: PartitionMoveParams,
) -> Result<Vec<Partition>> {
    params.check()?;
    let doing = format!("moving partitions of batch {} to node {}", params.batch, params.to);
    let mut tx = tx::begin(&inner.write, &doing).await?;
    let now = inner.now();
    let ids: Vec<i64> = sqlx::query_scalar(include_str!("../../queries/partition_movable.sql"))
        .bind(params.batch)
        .bind(params.from.as_str())
        .bind(i64::from(params.keep))
        .bind(i64::from(params.count))
        .bind(params.to.as_str())
        .fetch_all(&mut *tx)
        .await
        .map_err(|err| from_sqlx(&doing, err))?;
    if ids.is_empty() {
        tx::finish_unchanged(tx).await;
        return Ok(Vec::new());
    }
    let tokens = tokens::reserve(&mut tx, ids.len()).await?;
    let mut rows = Rows::default();
    // Ascending ids take ascending tokens, as claims do.
    for (id, token) in ids.iter().rev().zip(tokens) {
        rows.push(&[(*id).into(), token.to_store().into()]);
    }
    let written: Vec<PartitionRow> =
        sqlx::query_as(include_str!("../../queries/partition_move.sql"))
            .bind(params.to.as_str())
            .bind(rows.finish())
            .fetch_all(&mut *tx)
            .await
            .map_err(|err| from_sqlx(&doing, err))?;
    if written.len() != ids.len() {
        return Err(mismatch(&doing, written.len(), ids.len()));
    }
    let mut moved = decode_all(written, PartitionRow::into_partition)?;
    moved.sort_by_key(|partition| partition.id);
    record(&mut tx, moved.iter().zip(std::iter::repeat(&params.from)), params.reason, now, &doing)
        .await?;
    tx::commit(tx, &doing).await?;
    inner.wake_claimers();
    Ok(moved)
}

/// Records inside the caller's transaction that each partition (as it is now) moved from the
/// node paired with it, for `reason`, in order: one statement.
pub(super) async fn record<'a>(
    conn: &mut SqliteConnection,
    moved: impl Iterator<Item = (&'a Partition, &'a NodeId)>,
    reason: MoveReason,
    now: StoreTime,
    doing: &str,
) -> Result<()> {
    let mut rows = Rows::default();
    for (partition, from) in moved {
        // A failover's token is the previous claim's; the next claim issues the new one.
        let token = (reason != MoveReason::Failover).then_some(partition.token).flatten();
        rows.push(&[
            partition.batch.into(),
            partition.id.into(),
            partition.key.as_str().into(),
            from.as_str().into(),
            partition.node.as_ref().map(NodeId::as_str).into(),
            reason.as_str().into(),
            token.map_or(Cell::Null, |token| FencingToken::to_store(token).into()),
        ]);
    }
    if rows.len() == 0 {
        return Ok(());
    }
    sqlx::query(include_str!("../../queries/partition_moves_insert.sql"))
        .bind(now.as_millis())
        .bind(rows.finish())
        .execute(conn)
        .await
        .map_err(|err| from_sqlx(doing, err))?;
    Ok(())
}

/// One page of a batch's moves, oldest first.
pub(super) async fn list(
    read: &SqlitePool,
    params: PartitionMovesParams,
) -> Result<Page<PartitionMove>> {
    let limit = check_page_size(params.limit)?;
    let doing = format!("listing the moves of batch {}", params.batch);
    let rows: Vec<PartitionMoveRow> =
        sqlx::query_as(include_str!("../../queries/partition_moves_list.sql"))
            .bind(params.batch)
            .bind(params.after.map_or(i64::MIN, Cursor::last_id))
            .bind(i64::from(limit) + 1)
            .fetch_all(read)
            .await
            .map_err(|err| from_sqlx(&doing, err))?;
    Ok(Page::from_fetched(decode_all(rows, PartitionMoveRow::into_move)?, limit, |m| m.id))
}
