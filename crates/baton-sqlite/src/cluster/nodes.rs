//! A node's own writes: registration as a new incarnation, heartbeats with its partitions',
//! and a graceful leave; and the record of node state changes they and the sweep share.

use std::collections::HashSet;

use baton_core::cluster::{
    Departure, Node, NodeChange, NodeChangeReason, NodeHeartbeatOutcome, NodeHeartbeatParams,
    NodeId, NodeLeaveParams, NodeRegisterParams, NodeState, PartitionState, node_lost,
};
use baton_core::{Result, StoreTime};
use sqlx::SqliteConnection;

use super::rows::{NodeChangeRow, NodeRow, decode_all, stored_u64};
use super::{Inner, rehome, tokens};
use crate::error::from_sqlx;
use crate::json::Rows;
use crate::tx;

/// Registers a new incarnation under a new token: reads the previous one, upserts the node and
/// records the change; a previous incarnation's claimed partitions are rehomed in the same
/// transaction.
pub(super) async fn register(inner: &Inner, params: NodeRegisterParams) -> Result<Node> {
    params.check()?;
    let doing = format!("registering node {}", params.id);
    let mut tx = tx::begin(&inner.write, &doing).await?;
    let now = inner.now();
    let previous = read(&mut tx, &params.id, &doing).await?.map(|node| node.state);
    let token = tokens::reserve_one(&mut tx).await?;
    let row: NodeRow = sqlx::query_as(include_str!("../../queries/node_upsert.sql"))
        .bind(params.id.as_str())
        .bind(&params.host)
        .bind(&params.version)
        .bind(i64::from(params.load))
        .bind(token.to_store())
        .bind(now.as_millis())
        .fetch_one(&mut *tx)
        .await
        .map_err(|err| from_sqlx(&doing, err))?;
    let node = row.into_node()?;
    let reason = if previous.is_some() {
        NodeChangeReason::Reregistered
    } else {
        NodeChangeReason::Registered
    };
    record_changes(&mut tx, &[(&node, previous, reason)], now, &doing).await?;
    let mut requeued = false;
    if previous.is_some() {
        let claimed = [PartitionState::Claimed];
        let rehomed =
            rehome::departed(&mut tx, &node.id, &claimed, Departure::Reregistered, now, &doing)
                .await?;
        requeued = !rehomed.moved.is_empty();
    }
    tx::commit(tx, &doing).await?;
    if requeued {
        inner.wake_claimers();
    }
    Ok(node)
}

/// Stamps the node's heartbeat (one statement) and those of the partitions it still holds
/// under the tokens given (one more); answers the others as lost.
pub(super) async fn heartbeat(
    inner: &Inner,
    params: NodeHeartbeatParams,
) -> Result<NodeHeartbeatOutcome> {
    let mut beats = Rows::default();
    for beat in &params.partitions {
        let progress = stored_u64("progress", beat.progress)?;
        beats.push(&[beat.id.into(), beat.token.to_store().into(), progress.into()]);
    }
    let doing = format!("recording the heartbeat of node {}", params.node);
    let mut tx = tx::begin(&inner.write, &doing).await?;
    let now = inner.now();
    let row: Option<NodeRow> = sqlx::query_as(include_str!("../../queries/node_heartbeat.sql"))
        .bind(now.as_millis())
        .bind(params.node.as_str())
        .bind(params.token.to_store())
        .bind(i64::from(params.load))
        .fetch_optional(&mut *tx)
        .await
        .map_err(|err| from_sqlx(&doing, err))?;
    let Some(row) = row else {
        tx::finish_unchanged(tx).await;
        return Err(node_lost(&params.node, params.token));
    };
    let node = row.into_node()?;
    let mut held = HashSet::new();
    if beats.len() > 0 {
        let stamped: Vec<(i64, i64)> =
            sqlx::query_as(include_str!("../../queries/partition_heartbeat.sql"))
                .bind(now.as_millis())
                .bind(params.node.as_str())
                .bind(beats.finish())
                .fetch_all(&mut *tx)
                .await
                .map_err(|err| from_sqlx(&doing, err))?;
        held.extend(stamped);
    }
    tx::commit(tx, &doing).await?;
    let lost = params
        .partitions
        .iter()
        .filter(|beat| !held.contains(&(beat.id, beat.token.to_store())))
        .map(|beat| beat.id)
        .collect();
    Ok(NodeHeartbeatOutcome { node, lost })
}

/// Marks an active node as left, records the change and rehomes its pending and claimed
/// partitions, in one transaction.
pub(super) async fn leave(inner: &Inner, params: NodeLeaveParams) -> Result<Node> {
    let doing = format!("leaving the cluster as node {}", params.node);
    let mut tx = tx::begin(&inner.write, &doing).await?;
    let now = inner.now();
    let row: Option<NodeRow> = sqlx::query_as(include_str!("../../queries/node_leave.sql"))
        .bind(now.as_millis())
        .bind(params.node.as_str())
        .bind(params.token.to_store())
        .fetch_optional(&mut *tx)
        .await
        .map_err(|err| from_sqlx(&doing, err))?;
    let Some(row) = row else {
        tx::finish_unchanged(tx).await;
        return Err(node_lost(&params.node, params.token));
    };
    let node = row.into_node()?;
    let change = (&node, Some(NodeState::Active), NodeChangeReason::Left);
    record_changes(&mut tx, &[change], now, &doing).await?;
    let unfinished = [PartitionState::Pending, PartitionState::Claimed];
    let rehomed =
        rehome::departed(&mut tx, &node.id, &unfinished, Departure::Left, now, &doing).await?;
    tx::commit(tx, &doing).await?;
    if !rehomed.moved.is_empty() {
        inner.wake_claimers();
    }
    Ok(node)
}

/// Reads one node inside the caller's transaction.
pub(super) async fn read(
    conn: &mut SqliteConnection,
    id: &NodeId,
    doing: &str,
) -> Result<Option<Node>> {
    let row: Option<NodeRow> = sqlx::query_as(include_str!("../../queries/node_get.sql"))
        .bind(id.as_str())
        .fetch_optional(conn)
        .await
        .map_err(|err| from_sqlx(doing, err))?;
    row.map(NodeRow::into_node).transpose()
}

/// Records that each node (as it is now) came from a state for a reason at `now`, in one
/// statement; answers the records in the order given.
pub(super) async fn record_changes(
    conn: &mut SqliteConnection,
    changes: &[(&Node, Option<NodeState>, NodeChangeReason)],
    now: StoreTime,
    doing: &str,
) -> Result<Vec<NodeChange>> {
    let mut rows = Rows::default();
    for (node, from, reason) in changes {
        rows.push(&[
            node.id.as_str().into(),
            node.token.to_store().into(),
            from.map(NodeState::as_str).into(),
            node.state.as_str().into(),
            reason.as_str().into(),
        ]);
    }
    let recorded: Vec<NodeChangeRow> =
        sqlx::query_as(include_str!("../../queries/node_changes_insert.sql"))
            .bind(now.as_millis())
            .bind(rows.finish())
            .fetch_all(conn)
            .await
            .map_err(|err| from_sqlx(doing, err))?;
    let mut recorded = decode_all(recorded, NodeChangeRow::into_change)?;
    recorded.sort_by_key(|change| change.id);
    Ok(recorded)
}
