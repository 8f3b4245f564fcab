//! Rehoming the partitions of departed nodes (invariant I7): the leader's reassignment, and
//! the same rule applied at once by a leave or a re-registration.
//!
//! The orphans are read with their batch's strategy, their fates decided by the core's
//! [`rehome`] against the live nodes' load, and written back in one statement.

use std::collections::HashMap;

use baton_core::cluster::{
    Departure, Fate, MoveReason, NodeId, NodeLoad, Orphan, Partition, PartitionReassignParams,
    PartitionState, Reassigned, Strategy, rehome,
};
use baton_core::{Error, ErrorKind, Result, StoreTime};
use sqlx::SqliteConnection;

use super::rows::{NodeLoadRow, OrphanRow, PartitionRow, StrayRow, decode_all};
use super::{Inner, check_limit, mismatch, moves};
use crate::error::from_sqlx;
use crate::json::{self, Rows};
use crate::tx;

/// Rehomes, by id and up to the limit, the pending and claimed partitions whose node is not
/// active: one statement reads them, and when there are some, one reads the live nodes and one
/// writes the fates.
pub(super) async fn reassign(inner: &Inner, params: PartitionReassignParams) -> Result<Reassigned> {
    let limit = check_limit("reassignment limit", params.limit)?;
    let doing = "reassigning the partitions of departed nodes";
    let mut tx = tx::begin(&inner.write, doing).await?;
    let now = inner.now();
    let rows: Vec<StrayRow> = sqlx::query_as(include_str!("../../queries/partition_orphans.sql"))
        .bind(i64::from(limit))
        .fetch_all(&mut *tx)
        .await
        .map_err(|err| from_sqlx(doing, err))?;
    let mut strays = Vec::with_capacity(rows.len());
    for row in rows {
        let (partition, strategy, state) = row.into_parts()?;
        strays.extend(Departure::from_state(state).and_then(|d| stray(partition, strategy, d)));
    }
    if strays.is_empty() {
        tx::finish_unchanged(tx).await;
        return Ok(Reassigned::default());
    }
    let reassigned = apply(&mut tx, strays, now, doing).await?;
    tx::commit(tx, doing).await?;
    if !reassigned.moved.is_empty() {
        inner.wake_claimers();
    }
    Ok(reassigned)
}

/// Rehomes the partitions of node `node` in `states`, which departed for `departure`, inside
/// the caller's transaction; answers what it did.
pub(super) async fn departed(
    conn: &mut SqliteConnection,
    node: &NodeId,
    states: &[PartitionState],
    departure: Departure,
    now: StoreTime,
    doing: &str,
) -> Result<Reassigned> {
    let rows: Vec<OrphanRow> =
        sqlx::query_as(include_str!("../../queries/partition_orphans_of_node.sql"))
            .bind(node.as_str())
            .bind(json::strings(states.iter().map(|state| state.as_str())))
            .fetch_all(&mut *conn)
            .await
            .map_err(|err| from_sqlx(doing, err))?;
    let mut strays = Vec::with_capacity(rows.len());
    for row in rows {
        let (partition, strategy) = row.into_parts()?;
        strays.extend(stray(partition, strategy, departure));
    }
    apply(conn, strays, now, doing).await
}

/// A partition whose node departed, and what the core's rule needs to know of it.
type Stray = (Partition, Orphan);

/// The orphan a partition of a batch with `strategy` is once its node departed; `None` for a
/// partition that has no node.
fn stray(partition: Partition, strategy: Strategy, departure: Departure) -> Option<Stray> {
    let orphan = Orphan {
        key: partition.key.clone(),
        node: partition.node.clone()?,
        departure,
        claimed: partition.state == PartitionState::Claimed,
        transferable: partition.transferable,
        strategy,
    };
    Some((partition, orphan))
}

/// Decides the fate of each stray, in order, and writes them all in one statement.
async fn apply(
    conn: &mut SqliteConnection,
    strays: Vec<Stray>,
    now: StoreTime,
    doing: &str,
) -> Result<Reassigned> {
    if strays.is_empty() {
        return Ok(Reassigned::default());
    }
    let (partitions, orphans): (Vec<Partition>, Vec<Orphan>) = strays.into_iter().unzip();
    let fates = rehome(&orphans, &live_loads(conn, doing).await?);
    let mut rows = Rows::default();
    for (partition, fate) in partitions.iter().zip(&fates) {
        let (state, node, error) = match fate {
            Fate::Requeue(node) => (PartitionState::Pending, node.as_ref(), None),
            Fate::Fail(reason) => (PartitionState::Failed, partition.node.as_ref(), Some(reason)),
            other => return Err(unknown_fate(other)),
        };
        rows.push(&[
            partition.id.into(),
            state.as_str().into(),
            node.map(NodeId::as_str).into(),
            error.map(String::as_str).into(),
        ]);
    }
    let expected = rows.len();
    let written: Vec<PartitionRow> =
        sqlx::query_as(include_str!("../../queries/partition_rehome.sql"))
            .bind(now.as_millis())
            .bind(rows.finish())
            .fetch_all(&mut *conn)
            .await
            .map_err(|err| from_sqlx(doing, err))?;
    if written.len() != expected {
        return Err(mismatch(doing, written.len(), expected));
    }
    let mut written = decode_all(written, PartitionRow::into_partition)?;
    written.sort_by_key(|partition| partition.id);
    let (failed, moved): (Vec<Partition>, Vec<Partition>) =
        written.into_iter().partition(|partition| partition.state == PartitionState::Failed);
    let departed: HashMap<i64, &NodeId> =
        partitions.iter().filter_map(|p| Some((p.id, p.node.as_ref()?))).collect();
    let from: Vec<&NodeId> = moved.iter().map(|p| departed[&p.id]).collect();
    moves::record(conn, moved.iter().zip(from), MoveReason::Failover, now, doing).await?;
    Ok(Reassigned { moved, failed })
}

/// The error for a fate this version of the store cannot apply.
fn unknown_fate(fate: &Fate) -> Error {
    Error::new(
        ErrorKind::Internal,
        format!("SQLite store: cannot apply the partition fate {fate:?}"),
    )
}

/// Every active node with its load.
async fn live_loads(conn: &mut SqliteConnection, doing: &str) -> Result<Vec<NodeLoad>> {
    let rows: Vec<NodeLoadRow> = sqlx::query_as(include_str!("../../queries/node_live.sql"))
        .fetch_all(conn)
        .await
        .map_err(|err| from_sqlx(doing, err))?;
    decode_all(rows, NodeLoadRow::into_load)
}
