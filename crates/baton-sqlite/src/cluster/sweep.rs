//! The leader's sweep: silent nodes move on to unreachable, then removed, judged on the
//! store's clock.

use std::time::Duration;

use baton_core::cluster::{
    Node, NodeChange, NodeChangeReason, NodeState, NodeSweepParams, NodeThresholds, next_state,
};
use baton_core::{Result, StoreTime};
use sqlx::SqliteConnection;

use super::rows::{NodeRow, decode_all};
use super::{Inner, mismatch, nodes};
use crate::error::from_sqlx;
use crate::json::Rows;
use crate::tx;

/// Moves every node [`next_state`] says is due on, in order of seq, and records the changes:
/// one statement reads the nodes silent past a threshold, and when some move, one updates
/// them and one records the changes.
pub(super) async fn sweep(inner: &Inner, params: NodeSweepParams) -> Result<Vec<NodeChange>> {
    let doing = "sweeping silent nodes";
    let mut tx = tx::begin(&inner.write, doing).await?;
    let now = inner.now();
    let moved = due(&mut tx, &params.thresholds, now, doing).await?;
    if moved.is_empty() {
        tx::finish_unchanged(tx).await;
        return Ok(Vec::new());
    }
    let mut states = Rows::default();
    for (node, _) in &moved {
        states.push(&[node.seq.into(), node.state.as_str().into()]);
    }
    let done = sqlx::query(include_str!("../../queries/node_set_states.sql"))
        .bind(now.as_millis())
        .bind(states.finish())
        .execute(&mut *tx)
        .await
        .map_err(|err| from_sqlx(doing, err))?;
    let changed = usize::try_from(done.rows_affected()).unwrap_or(usize::MAX);
    if changed != moved.len() {
        return Err(mismatch(doing, changed, moved.len()));
    }
    let changes: Vec<(_, Option<NodeState>, _)> = moved
        .iter()
        .map(|(node, from)| (node, Some(*from), NodeChangeReason::NoHeartbeat))
        .collect();
    let recorded = nodes::record_changes(&mut tx, &changes, now, doing).await?;
    tx::commit(tx, doing).await?;
    Ok(recorded)
}

/// The nodes due to move on at `now`, as they will be, each with the state it leaves.
async fn due(
    conn: &mut SqliteConnection,
    thresholds: &NodeThresholds,
    now: StoreTime,
    doing: &str,
) -> Result<Vec<(Node, NodeState)>> {
    let silent: Vec<NodeRow> = sqlx::query_as(include_str!("../../queries/node_silent.sql"))
        .bind(silent_before(now, thresholds.unreachable_after()))
        .bind(silent_before(now, thresholds.removed_after()))
        .fetch_all(conn)
        .await
        .map_err(|err| from_sqlx(doing, err))?;
    let mut moved = Vec::new();
    for mut node in decode_all(silent, NodeRow::into_node)? {
        let from = node.state;
        node.state = next_state(from, node.heartbeat_at, now, thresholds);
        if node.state != from {
            node.state_changed_at = now;
            moved.push((node, from));
        }
    }
    Ok(moved)
}

/// The heartbeat instant (ms) before which a node is silent for longer than `threshold` at
/// `now`: `now - heartbeat > threshold` in whole milliseconds. Only narrows what is read;
/// [`next_state`] decides.
fn silent_before(now: StoreTime, threshold: Duration) -> i64 {
    let threshold = i64::try_from(threshold.as_millis()).unwrap_or(i64::MAX);
    now.as_millis().saturating_sub(threshold)
}
