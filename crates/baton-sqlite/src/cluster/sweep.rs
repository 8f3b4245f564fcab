//! The leader's sweep: silent nodes move on to unreachable, then removed, judged on the
//! store's clock.

use std::time::Duration;

use baton_core::cluster::{
    Node, NodeChangeReason, NodeState, NodeSweepParams, NodeThresholds, Swept, next_state,
};
use baton_core::{Result, StoreTime};
use sqlx::SqliteConnection;

use super::rows::{NodeRow, decode_all};
use super::{Inner, mismatch, nodes};
use crate::error::from_sqlx;
use crate::json::Rows;
use crate::tx;

/// Moves every node [`next_state`] says is due on, in order of seq, and records the changes:
/// one statement reads the active nodes and the unreachable ones silent past the removal
/// threshold, and when some move, one updates them and one records the changes. The oldest
/// heartbeat left active comes from the same read.
pub(super) async fn sweep(inner: &Inner, params: NodeSweepParams) -> Result<Swept> {
    let doing = "sweeping silent nodes";
    let mut tx = tx::begin(&inner.write, doing).await?;
    let now = inner.now();
    let judged = judge(&mut tx, &params.thresholds, now, doing).await?;
    let oldest_active_heartbeat = judged.oldest_active_heartbeat;
    if judged.moved.is_empty() {
        tx::finish_unchanged(tx).await;
        return Ok(Swept { changes: Vec::new(), now, oldest_active_heartbeat });
    }
    let mut states = Rows::default();
    for (node, _) in &judged.moved {
        states.push(&[node.seq.into(), node.state.as_str().into()]);
    }
    let done = sqlx::query(include_str!("../../queries/node_set_states.sql"))
        .bind(now.as_millis())
        .bind(states.finish())
        .execute(&mut *tx)
        .await
        .map_err(|err| from_sqlx(doing, err))?;
    let changed = usize::try_from(done.rows_affected()).unwrap_or(usize::MAX);
    if changed != judged.moved.len() {
        return Err(mismatch(doing, changed, judged.moved.len()));
    }
    let changes: Vec<(_, Option<NodeState>, _)> = judged
        .moved
        .iter()
        .map(|(node, from)| (node, Some(*from), NodeChangeReason::NoHeartbeat))
        .collect();
    let recorded = nodes::record_changes(&mut tx, &changes, now, doing).await?;
    tx::commit(tx, doing).await?;
    Ok(Swept { changes: recorded, now, oldest_active_heartbeat })
}

/// What a sweep decided at its store time.
struct Judged {
    /// The nodes due to move on, as they will be, each with the state it leaves.
    moved: Vec<(Node, NodeState)>,
    /// The oldest heartbeat of the active nodes that stay active.
    oldest_active_heartbeat: Option<StoreTime>,
}

/// Reads the nodes a sweep judges and decides each by [`next_state`] at `now`.
async fn judge(
    conn: &mut SqliteConnection,
    thresholds: &NodeThresholds,
    now: StoreTime,
    doing: &str,
) -> Result<Judged> {
    let candidates: Vec<NodeRow> =
        sqlx::query_as(include_str!("../../queries/node_sweep_candidates.sql"))
            .bind(silent_before(now, thresholds.removed_after()))
            .fetch_all(conn)
            .await
            .map_err(|err| from_sqlx(doing, err))?;
    let mut judged = Judged { moved: Vec::new(), oldest_active_heartbeat: None };
    for mut node in decode_all(candidates, NodeRow::into_node)? {
        let from = node.state;
        node.state = next_state(from, node.heartbeat_at, now, thresholds);
        if node.state == NodeState::Active {
            let oldest = judged.oldest_active_heartbeat.get_or_insert(node.heartbeat_at);
            *oldest = (*oldest).min(node.heartbeat_at);
        } else if node.state != from {
            node.state_changed_at = now;
            judged.moved.push((node, from));
        }
    }
    Ok(judged)
}

/// The heartbeat instant (ms) before which a node is silent for longer than `threshold` at
/// `now`: `now - heartbeat > threshold` in whole milliseconds. Only narrows what is read;
/// [`next_state`] decides.
fn silent_before(now: StoreTime, threshold: Duration) -> i64 {
    let threshold = i64::try_from(threshold.as_millis()).unwrap_or(i64::MAX);
    now.as_millis().saturating_sub(threshold)
}
