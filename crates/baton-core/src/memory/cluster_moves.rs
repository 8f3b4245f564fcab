//! Rebalancing moves of the in-memory `ClusterStore`: pending partitions moved by the leader,
//! and the history of every move.

use super::cluster_state::{ClusterRecords, index, page};
use crate::cluster::{
    BatchState, NodeState, Partition, PartitionMove, PartitionMoveParams, PartitionMovesParams,
    PartitionState,
};
use crate::error::Result;
use crate::page::Page;
use crate::time::StoreTime;

impl ClusterRecords {
    /// Moves the source's pending partitions of a running batch with the greatest ids to an
    /// active node, as the params bound it, each under a new token.
    pub(super) fn move_pending(
        &mut self,
        params: PartitionMoveParams,
        now: StoreTime,
    ) -> Result<Vec<Partition>> {
        params.check()?;
        let running = index(params.batch)
            .and_then(|i| self.batches.get(i))
            .is_some_and(|batch| batch.state == BatchState::Running);
        if !running || self.node_state(&params.to) != Some(NodeState::Active) {
            return Ok(Vec::new());
        }
        let range = self.batch_partitions[index(params.batch).expect("a running batch")].clone();
        let held: Vec<usize> = range
            .filter(|&i| self.partitions[i].state == PartitionState::Pending)
            .filter(|&i| self.partitions[i].node.as_ref() == Some(&params.from))
            .collect();
        let movable = held.len().saturating_sub(params.keep as usize).min(params.count as usize);
        let mut moved = Vec::with_capacity(movable);
        for &i in &held[held.len() - movable..] {
            let token = self.next_token()?;
            let partition = &mut self.partitions[i];
            partition.node = Some(params.to.clone());
            partition.token = Some(token);
            let partition = partition.clone();
            self.record_move(&partition, params.from.clone(), params.reason, Some(token), now);
            moved.push(partition);
        }
        if !moved.is_empty() {
            self.pending_writes += 1;
        }
        Ok(moved)
    }

    /// One page of a batch's moves, oldest first.
    pub(super) fn moves(&self, params: PartitionMovesParams) -> Result<Page<PartitionMove>> {
        let matching = self.moves.iter().filter(|m| m.batch == params.batch);
        page(matching, params.after, params.limit, |m| m.id)
    }
}
