//! The leader's sweep: silent nodes move on to unreachable, then removed, judged on the
//! server's clock by the core's [`next_state`].

use std::collections::HashMap;

use baton_core::cluster::{Node, NodeChangeReason, NodeState, NodeSweepParams, Swept, next_state};
use baton_core::{Result, StoreTime};
use sqlx::MySqlConnection;

use super::lists::{self, MOST_ROWS};
use super::rows::{NodeRow, decode_all};
use super::{Inner, nodes, now};
use crate::queries::{NODE_SET_STATE, NODE_SWEEP_CANDIDATES, NODE_SWEEP_LOCK};
use crate::tx::{self, Failure};

/// Reads the server's time and the active and unreachable nodes (a plain read), then locks
/// those due to move (SKIP LOCKED: a node busy heartbeating is alive) and judges them again on
/// their latest versions; moves them and records the changes. The oldest heartbeat left active
/// counts each node at its latest version read.
pub(super) async fn sweep(inner: &Inner, params: &NodeSweepParams) -> Result<Swept> {
    let thresholds = params.thresholds;
    tx::transaction!(&inner.pool, "sweeping silent nodes", |conn| async {
        let now = now(&mut *conn).await?;
        let rows: Vec<NodeRow> =
            sqlx::query_as(NODE_SWEEP_CANDIDATES).fetch_all(&mut *conn).await?;
        let mut nodes = decode_all(rows, NodeRow::into_node)?;
        let moving = |node: &Node| next_state(node.state, node.heartbeat_at, now, &thresholds);
        let due: Vec<i64> =
            nodes.iter().filter(|node| moving(node) != node.state).map(|node| node.seq).collect();
        let mut moved = Vec::new();
        if !due.is_empty() {
            let latest: HashMap<i64, Node> =
                lock(&mut *conn, &due).await?.into_iter().map(|node| (node.seq, node)).collect();
            for node in &mut nodes {
                let Some(current) = latest.get(&node.seq) else { continue };
                *node = current.clone();
                let to = moving(node);
                if to != node.state {
                    moved.push((node.seq, node.state));
                    (node.state, node.state_changed_at) = (to, now);
                }
            }
        }
        let oldest_active_heartbeat = nodes
            .iter()
            .filter(|node| node.state == NodeState::Active)
            .map(|node| node.heartbeat_at)
            .min();
        if moved.is_empty() {
            return Ok(Swept { changes: Vec::new(), now, oldest_active_heartbeat });
        }
        for to in [NodeState::Unreachable, NodeState::Removed] {
            let seqs: Vec<i64> = nodes
                .iter()
                .filter(|node| node.state == to && moved.iter().any(|(seq, _)| *seq == node.seq))
                .map(|node| node.seq)
                .collect();
            set_state(&mut *conn, to, &seqs, now).await?;
        }
        let changes: Vec<(&Node, Option<NodeState>, NodeChangeReason)> = moved
            .iter()
            .filter_map(|(seq, from)| {
                let node = nodes.iter().find(|node| node.seq == *seq)?;
                Some((node, Some(*from), NodeChangeReason::NoHeartbeat))
            })
            .collect();
        let recorded = nodes::record_changes(&mut *conn, &changes, now).await?;
        Ok(Swept { changes: recorded, now, oldest_active_heartbeat })
    })
}

/// Locks the listed nodes in seq order, skipping those locked by others, and reads them.
async fn lock(conn: &mut MySqlConnection, seqs: &[i64]) -> Result<Vec<Node>, Failure> {
    let mut locked = Vec::with_capacity(seqs.len());
    for chunk in seqs.chunks(MOST_ROWS) {
        let statement = lists::ids(NODE_SWEEP_LOCK, chunk.len());
        let mut query =
            sqlx::query_as::<_, NodeRow>(sqlx::AssertSqlSafe(statement)).persistent(false);
        for seq in chunk {
            query = query.bind(seq);
        }
        let rows = query.fetch_all(&mut *conn).await?;
        locked.extend(decode_all(rows, NodeRow::into_node)?);
    }
    Ok(locked)
}

/// Moves the listed locked nodes to `to` at `now`.
async fn set_state(
    conn: &mut MySqlConnection,
    to: NodeState,
    seqs: &[i64],
    now: StoreTime,
) -> Result<(), Failure> {
    for chunk in seqs.chunks(MOST_ROWS) {
        let statement = lists::ids(NODE_SET_STATE, chunk.len());
        let mut query = sqlx::query(sqlx::AssertSqlSafe(statement))
            .persistent(false)
            .bind(to.as_str())
            .bind(now.as_millis());
        for seq in chunk {
            query = query.bind(seq);
        }
        query.execute(&mut *conn).await?;
    }
    Ok(())
}
