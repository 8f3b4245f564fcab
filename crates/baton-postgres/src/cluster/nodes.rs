//! Node membership: registration, heartbeats, leaving and the sweep of silent nodes.

use std::collections::HashSet;
use std::time::Duration;

use baton_core::Result;
use baton_core::cluster::{
    Node, NodeHeartbeatOutcome, NodeHeartbeatParams, NodeLeaveParams, NodeRegisterParams,
    NodeSweepParams, Swept, node_lost,
};

use super::{PostgresClusterStore, internal, rows, stored_count};
use crate::queries::{NODE_HEARTBEAT, NODE_LEAVE, NODE_REGISTER, NODE_SWEEP};
use crate::row;

impl PostgresClusterStore {
    /// Registers a new incarnation in one statement. Only when another session registers the
    /// same id for the first time at the same moment does the statement answer nothing; it is
    /// then run once more, and finds the record.
    pub(super) async fn register(&self, params: NodeRegisterParams) -> Result<Node> {
        params.check()?;
        for _ in 0..2 {
            let query = sqlx::query(NODE_REGISTER)
                .bind(params.id.as_str())
                .bind(params.host.as_str())
                .bind(params.version.as_str())
                .bind(i64::from(params.load));
            let registered = self
                .connections
                .fetch_optional(query, || format!("registering node {}", params.id))
                .await?;
            if let Some(found) = registered {
                return rows::node(&found);
            }
        }
        Err(internal(format!("registering node {} answered no row twice", params.id)))
    }

    /// Stamps the node and the partitions it still holds, in one statement whatever their
    /// number.
    pub(super) async fn beat(&self, params: NodeHeartbeatParams) -> Result<NodeHeartbeatOutcome> {
        let ids: Vec<i64> = params.partitions.iter().map(|beat| beat.id).collect();
        let tokens: Vec<i64> = params.partitions.iter().map(|beat| beat.token.to_store()).collect();
        let progress: Vec<i64> =
            params.partitions.iter().map(|beat| stored_count(beat.progress)).collect();
        let query = sqlx::query(NODE_HEARTBEAT)
            .bind(params.node.as_str())
            .bind(params.token.to_store())
            .bind(i64::from(params.load))
            .bind(&ids)
            .bind(&tokens)
            .bind(&progress);
        let found = self
            .connections
            .fetch_all(query, || format!("heartbeating node {}", params.node))
            .await?;
        let first = found.first().ok_or_else(|| node_lost(&params.node, params.token))?;
        let node = rows::node(first)?;
        let mut stamped = HashSet::with_capacity(found.len());
        for beaten in &found {
            stamped.extend(rows::stamped(beaten)?);
        }
        let lost = params
            .partitions
            .iter()
            .filter(|beat| !stamped.contains(&(beat.id, beat.token)))
            .map(|beat| beat.id)
            .collect();
        Ok(NodeHeartbeatOutcome { node, lost })
    }

    /// Marks the node as left and rehomes its partitions in one statement.
    pub(super) async fn leave(&self, params: NodeLeaveParams) -> Result<Node> {
        let query =
            sqlx::query(NODE_LEAVE).bind(params.node.as_str()).bind(params.token.to_store());
        let left = self
            .connections
            .fetch_optional(query, || format!("leaving the cluster as node {}", params.node))
            .await?
            .ok_or_else(|| node_lost(&params.node, params.token))?;
        rows::node(&left)
    }

    /// Moves silent nodes on and records the changes in one statement, which also answers
    /// the server's time and the oldest heartbeat left active.
    pub(super) async fn sweep(&self, params: NodeSweepParams) -> Result<Swept> {
        let thresholds = &params.thresholds;
        let query = sqlx::query(NODE_SWEEP)
            .bind(whole_millis(thresholds.unreachable_after()))
            .bind(whole_millis(thresholds.removed_after()));
        let found =
            self.connections.fetch_all(query, || "sweeping silent nodes".to_string()).await?;
        let first = found.first().ok_or_else(|| internal("a sweep answered no row".to_string()))?;
        let mut changes = Vec::with_capacity(found.len());
        for one in &found {
            if row::joined_id(one, "id")?.is_some() {
                changes.push(rows::node_change(one)?);
            }
        }
        Ok(Swept {
            changes,
            now: row::required_instant(first, "now_ms")?,
            oldest_active_heartbeat: row::instant(first, "oldest_active")?,
        })
    }
}

/// A threshold in whole milliseconds, saturating: silence counted in whole milliseconds exceeds
/// a threshold exactly when it exceeds the threshold's whole milliseconds.
fn whole_millis(threshold: Duration) -> i64 {
    i64::try_from(threshold.as_millis()).unwrap_or(i64::MAX)
}
