//! The leader's rebalancing of running batches: `scale-up` batches and batches with work
//! stealing get their pending partitions moved between live nodes, as
//! [`plan_moves`](baton_core::cluster::plan_moves) decides from the store's record, one
//! transaction per move.

use std::collections::BTreeMap;

use baton_core::Result;
use baton_core::cluster::{
    BatchJob, NodeId, NodeListParams, NodeState, PartitionListParams, PartitionState, PendingShare,
    Strategy, plan_moves,
};

use super::leader::Leader;
use super::pages::{PAGE, all_pages};
use crate::LeaderHandle;

/// Whether the leader rebalances `batch` while it runs.
fn rebalances(batch: &BatchJob) -> bool {
    match batch.strategy {
        Strategy::ScaleUp => true,
        Strategy::FreeForAll => false,
        _ => batch.stealing,
    }
}

impl Leader {
    /// Reads the live nodes (once) and, for each running batch that rebalances, its pending
    /// partitions, then applies the planned moves in order. A move that finds fewer partitions
    /// than planned (claimed meanwhile) moves fewer; the next step plans again.
    pub(super) async fn rebalance(&self, term: &LeaderHandle, running: &[BatchJob]) -> Result<()> {
        let batches: Vec<&BatchJob> = running.iter().filter(|batch| rebalances(batch)).collect();
        if batches.is_empty() {
            return Ok(());
        }
        let store = &self.store;
        let live = all_pages(|after| {
            store.node_list(NodeListParams { state: Some(NodeState::Active), after, limit: PAGE })
        })
        .await?;
        for batch in batches {
            let pending = all_pages(|after| {
                let state = Some(PartitionState::Pending);
                store.partition_list(PartitionListParams {
                    batch: batch.id,
                    state,
                    after,
                    limit: PAGE,
                })
            })
            .await?;
            let mut held: BTreeMap<&NodeId, u32> = BTreeMap::new();
            for partition in &pending {
                if let Some(node) = &partition.node {
                    *held.entry(node).or_default() += 1;
                }
            }
            let shares: Vec<PendingShare> = live
                .iter()
                .map(|node| PendingShare {
                    node: node.id.clone(),
                    pending: held.get(&node.id).copied().unwrap_or(0),
                    joined: node.started_at > batch.created_at,
                })
                .collect();
            for params in plan_moves(batch, &shares) {
                term.ensure_valid()?;
                let (from, to, reason) = (params.from.clone(), params.to.clone(), params.reason);
                let moved = self.store.partition_move(params).await?;
                if !moved.is_empty() {
                    tracing::info!(batch = batch.id, %from, %to, %reason, partitions = moved.len(),
                        "pending partitions moved");
                }
            }
        }
        Ok(())
    }
}
