//! A node's own writes: registration as a new incarnation, heartbeats with its partitions', and
//! a graceful leave; and the record of node state changes they and the sweep share.

use std::collections::HashSet;

use baton_core::cluster::{
    Departure, Node, NodeChange, NodeChangeReason, NodeHeartbeatOutcome, NodeHeartbeatParams,
    NodeId, NodeLeaveParams, NodeRegisterParams, NodeState, PartitionState, node_lost,
};
use baton_core::{FencingToken, Result, StoreTime};
use sqlx::MySqlConnection;

use super::lists::{self, MOST_ROWS};
use super::rows::{NodeChangeRow, NodeRow, decode_all, stored_u64};
use super::{Inner, now, rehome, tokens};
use crate::error::number;
use crate::queries::{
    NODE_BEAT, NODE_CHANGES_INSERT, NODE_CHANGES_RECORDED, NODE_INSERT, NODE_LEAVE, NODE_LOCK,
    NODE_REPLACE, PARTITION_BEAT, PARTITION_HELD,
};
use crate::tx::{self, Failure};
use crate::wakeups::{self, PENDING};

/// Registers a new incarnation: locks the node's record (if known) and the partitions the
/// previous incarnation claimed, draws the token, writes the record and its change, and rehomes
/// those partitions.
pub(super) async fn register(inner: &Inner, params: &NodeRegisterParams) -> Result<Node> {
    let doing = format!("registering node {}", params.id);
    let (node, requeued) = tx::transaction!(&inner.pool, &doing, |conn| async {
        let previous = lock(&mut *conn, &params.id).await?;
        let claimed = match &previous {
            Some(_) => {
                let states = [PartitionState::Claimed, PartitionState::Claimed];
                rehome::lock_of_node(&mut *conn, &params.id, states).await?
            }
            None => Vec::new(),
        };
        let token = tokens::draw_one(&mut *conn).await?;
        let now = now(&mut *conn).await?;
        let load = i64::from(params.load);
        let seq = match &previous {
            Some(previous) => {
                sqlx::query(NODE_REPLACE)
                    .bind(&params.host)
                    .bind(&params.version)
                    .bind(token.to_store())
                    .bind(now.as_millis())
                    .bind(now.as_millis())
                    .bind(load)
                    .bind(now.as_millis())
                    .bind(previous.seq)
                    .execute(&mut *conn)
                    .await?;
                previous.seq
            }
            None => insert(&mut *conn, params, token, now).await?,
        };
        let node = Node {
            seq,
            id: params.id.clone(),
            host: params.host.clone(),
            version: params.version.clone(),
            token,
            started_at: now,
            heartbeat_at: now,
            load: params.load,
            state: NodeState::Active,
            state_changed_at: now,
        };
        let (from, reason) = match &previous {
            Some(previous) => (Some(previous.state), NodeChangeReason::Reregistered),
            None => (None, NodeChangeReason::Registered),
        };
        record_changes(&mut *conn, &[(&node, from, reason)], now).await?;
        let rehomed = rehome::apply(&mut *conn, claimed, Departure::Reregistered, now).await?;
        let requeued = !rehomed.moved.is_empty();
        if requeued {
            wakeups::raise(&mut *conn, PENDING).await?;
        }
        Ok((node, requeued))
    })?;
    if requeued {
        inner.bell.ring().await;
    }
    Ok(node)
}

/// Stores a first registration and answers its seq; two first registrations of one id race on
/// the unique key, and the later runs again.
async fn insert(
    conn: &mut MySqlConnection,
    params: &NodeRegisterParams,
    token: FencingToken,
    now: StoreTime,
) -> Result<i64, Failure> {
    let inserted = sqlx::query(NODE_INSERT)
        .bind(params.id.as_str())
        .bind(&params.host)
        .bind(&params.version)
        .bind(token.to_store())
        .bind(now.as_millis())
        .bind(now.as_millis())
        .bind(i64::from(params.load))
        .bind(now.as_millis())
        .execute(conn)
        .await;
    match inserted {
        Ok(done) => Ok(i64::try_from(done.last_insert_id()).unwrap_or(i64::MAX)),
        Err(err) if number(&err) == Some(1062) => Err(Failure::Again(err)),
        Err(err) => Err(err.into()),
    }
}

/// Stamps an active node's heartbeat and those of the listed partitions it still holds under
/// the tokens given, in O(1) statements; answers the others as lost.
pub(super) async fn heartbeat(
    inner: &Inner,
    params: &NodeHeartbeatParams,
) -> Result<NodeHeartbeatOutcome> {
    let doing = format!("recording the heartbeat of node {}", params.node);
    let mut progress = Vec::with_capacity(params.partitions.len());
    for beat in &params.partitions {
        progress.push(stored_u64("progress", beat.progress)?);
    }
    let (node, held) = tx::transaction!(&inner.pool, &doing, |conn| async {
        let Some(mut node) = lock_active(&mut *conn, &params.node, params.token).await? else {
            return Err(node_lost(&params.node, params.token).into());
        };
        let now = now(&mut *conn).await?;
        sqlx::query(NODE_BEAT)
            .bind(now.as_millis())
            .bind(i64::from(params.load))
            .bind(node.seq)
            .execute(&mut *conn)
            .await?;
        (node.heartbeat_at, node.load) = (now, params.load);
        let mut held = HashSet::new();
        for (beats, progress) in params.partitions.chunks(MOST_ROWS).zip(progress.chunks(MOST_ROWS))
        {
            let statement = lists::ids(PARTITION_HELD, beats.len());
            let mut query = sqlx::query_as::<_, (i64, i64)>(sqlx::AssertSqlSafe(statement))
                .persistent(false)
                .bind(params.node.as_str());
            for beat in beats {
                query = query.bind(beat.id);
            }
            let current: HashSet<(i64, i64)> =
                query.fetch_all(&mut *conn).await?.into_iter().collect();
            let stamped: Vec<(i64, i64)> = beats
                .iter()
                .zip(progress)
                .filter(|(beat, _)| current.contains(&(beat.id, beat.token.to_store())))
                .map(|(beat, progress)| (beat.id, *progress))
                .collect();
            if stamped.is_empty() {
                continue;
            }
            let statement = lists::cases(PARTITION_BEAT, stamped.len());
            let mut query =
                sqlx::query(sqlx::AssertSqlSafe(statement)).persistent(false).bind(now.as_millis());
            for (id, progress) in &stamped {
                query = query.bind(id).bind(progress);
            }
            for (id, _) in &stamped {
                query = query.bind(id);
            }
            query.execute(&mut *conn).await?;
            held.extend(stamped.iter().map(|(id, _)| *id));
        }
        Ok((node, held))
    })?;
    let lost = params
        .partitions
        .iter()
        .filter(|beat| !held.contains(&beat.id))
        .map(|beat| beat.id)
        .collect();
    Ok(NodeHeartbeatOutcome { node, lost })
}

/// Marks an active node as left, records the change and rehomes its pending and claimed
/// partitions, in one transaction.
pub(super) async fn leave(inner: &Inner, params: &NodeLeaveParams) -> Result<Node> {
    let doing = format!("leaving the cluster as node {}", params.node);
    let (node, requeued) = tx::transaction!(&inner.pool, &doing, |conn| async {
        let Some(mut node) = lock_active(&mut *conn, &params.node, params.token).await? else {
            return Err(node_lost(&params.node, params.token).into());
        };
        let states = [PartitionState::Pending, PartitionState::Claimed];
        let orphans = rehome::lock_of_node(&mut *conn, &params.node, states).await?;
        let now = now(&mut *conn).await?;
        sqlx::query(NODE_LEAVE).bind(now.as_millis()).bind(node.seq).execute(&mut *conn).await?;
        (node.state, node.state_changed_at) = (NodeState::Left, now);
        let change = (&node, Some(NodeState::Active), NodeChangeReason::Left);
        record_changes(&mut *conn, &[change], now).await?;
        let rehomed = rehome::apply(&mut *conn, orphans, Departure::Left, now).await?;
        let requeued = !rehomed.moved.is_empty();
        if requeued {
            wakeups::raise(&mut *conn, PENDING).await?;
        }
        Ok((node, requeued))
    })?;
    if requeued {
        inner.bell.ring().await;
    }
    Ok(node)
}

/// Locks and reads one node record; `None` when the id is not registered.
pub(super) async fn lock(conn: &mut MySqlConnection, id: &NodeId) -> Result<Option<Node>, Failure> {
    let row: Option<NodeRow> =
        sqlx::query_as(NODE_LOCK).bind(id.as_str()).fetch_optional(conn).await?;
    Ok(row.map(NodeRow::into_node).transpose()?)
}

/// Locks and reads one node record, answered only while it is active under `token`.
async fn lock_active(
    conn: &mut MySqlConnection,
    id: &NodeId,
    token: FencingToken,
) -> Result<Option<Node>, Failure> {
    let node = lock(conn, id).await?;
    Ok(node.filter(|node| node.state.is_live() && node.token == token))
}

/// Records that each node (as it is now) came from a state for a reason at `now`, in one
/// statement, and reads the records back in order; the caller holds every node's record.
pub(super) async fn record_changes(
    conn: &mut MySqlConnection,
    changes: &[(&Node, Option<NodeState>, NodeChangeReason)],
    now: StoreTime,
) -> Result<Vec<NodeChange>, Failure> {
    let mut recorded = Vec::with_capacity(changes.len());
    for changes in changes.chunks(MOST_ROWS) {
        let statement = lists::rows(NODE_CHANGES_INSERT, "(?, ?, ?, ?, ?, ?)", changes.len());
        let mut insert = sqlx::query(sqlx::AssertSqlSafe(statement)).persistent(false);
        for (node, from, reason) in changes {
            insert = insert
                .bind(node.id.as_str())
                .bind(node.token.to_store())
                .bind(from.map(NodeState::as_str))
                .bind(node.state.as_str())
                .bind(now.as_millis())
                .bind(reason.as_str());
        }
        let first = insert.execute(&mut *conn).await?.last_insert_id();
        let statement = lists::ids(NODE_CHANGES_RECORDED, changes.len());
        let mut read = sqlx::query_as::<_, NodeChangeRow>(sqlx::AssertSqlSafe(statement))
            .persistent(false)
            .bind(first);
        for (node, _, _) in changes {
            read = read.bind(node.id.as_str());
        }
        let rows = read.fetch_all(&mut *conn).await?;
        recorded.extend(decode_all(rows, NodeChangeRow::into_change)?);
    }
    Ok(recorded)
}
