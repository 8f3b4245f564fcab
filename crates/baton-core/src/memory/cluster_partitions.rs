//! Partition operations of the in-memory `ClusterStore`: claims, checkpoints, completion,
//! failure, and rehoming the partitions of departed nodes.

use super::cluster_state::ClusterRecords;
use crate::cluster::{
    Departure, Fate, MoveReason, Orphan, Partition, PartitionCheckpointParams,
    PartitionClaimParams, PartitionCompleteParams, PartitionFailParams, PartitionReassignParams,
    PartitionState, Reassigned, rehome,
};
use crate::error::{Error, Result};
use crate::page::MAX_PAGE_SIZE;
use crate::time::StoreTime;

impl ClusterRecords {
    /// Claims pending partitions assigned to the node or to no one, by id, up to the limit.
    pub(super) fn claim(
        &mut self,
        params: PartitionClaimParams,
        now: StoreTime,
    ) -> Result<Vec<Partition>> {
        check_limit("claim limit", params.limit)?;
        self.active_node(&params.node, params.token)?;
        let claimable: Vec<usize> = self
            .partitions
            .iter()
            .enumerate()
            .filter(|(_, p)| p.state == PartitionState::Pending)
            .filter(|(_, p)| p.node.as_ref().is_none_or(|n| n == &params.node))
            .filter(|(_, p)| params.jobs.is_empty() || params.jobs.contains(&self.batch_of(p).name))
            .map(|(i, _)| i)
            .take(params.limit as usize)
            .collect();
        let mut claimed = Vec::with_capacity(claimable.len());
        for index in claimable {
            let token = self.next_token()?;
            let partition = &mut self.partitions[index];
            partition.state = PartitionState::Claimed;
            partition.node = Some(params.node.clone());
            partition.token = Some(token);
            partition.attempts = partition.attempts.saturating_add(1);
            partition.claimed_at = Some(now);
            partition.heartbeat_at = Some(now);
            claimed.push(partition.clone());
        }
        Ok(claimed)
    }

    /// Replaces a claimed partition's checkpoint and progress.
    pub(super) fn checkpoint(
        &mut self,
        params: PartitionCheckpointParams,
        now: StoreTime,
    ) -> Result<Partition> {
        let partition = self.claimed(params.id, params.token)?;
        partition.checkpoint = Some(params.checkpoint);
        partition.progress = params.progress;
        partition.heartbeat_at = Some(now);
        Ok(partition.clone())
    }

    /// Completes a claimed partition with its result.
    pub(super) fn complete(
        &mut self,
        params: PartitionCompleteParams,
        now: StoreTime,
    ) -> Result<Partition> {
        let partition = self.claimed(params.id, params.token)?;
        partition.state = PartitionState::Completed;
        partition.result = params.result;
        partition.finished_at = Some(now);
        Ok(partition.clone())
    }

    /// Fails a claimed partition with its error.
    pub(super) fn fail(
        &mut self,
        params: PartitionFailParams,
        now: StoreTime,
    ) -> Result<Partition> {
        let error = params.stored_error().to_owned();
        let partition = self.claimed(params.id, params.token)?;
        partition.state = PartitionState::Failed;
        partition.error = Some(error);
        partition.finished_at = Some(now);
        Ok(partition.clone())
    }

    /// Rehomes, by id and up to the limit, the unfinished partitions of nodes not active.
    pub(super) fn reassign(
        &mut self,
        params: PartitionReassignParams,
        now: StoreTime,
    ) -> Result<Reassigned> {
        check_limit("reassignment limit", params.limit)?;
        let orphans: Vec<(usize, Departure)> = self
            .partitions
            .iter()
            .enumerate()
            .filter(|(_, p)| !p.state.is_final())
            .filter_map(|(i, p)| {
                let node = p.node.as_ref()?;
                Some((i, Departure::from_state(self.node_state(node))?))
            })
            .take(params.limit as usize)
            .collect();
        Ok(self.rehome(orphans, now))
    }

    /// Decides and applies the fate of each orphaned partition (by index) at `now`.
    pub(super) fn rehome(
        &mut self,
        orphans: Vec<(usize, Departure)>,
        now: StoreTime,
    ) -> Reassigned {
        let (indexes, described): (Vec<usize>, Vec<Orphan>) = orphans
            .into_iter()
            .filter_map(|(index, departure)| {
                let partition = &self.partitions[index];
                let orphan = Orphan {
                    key: partition.key.clone(),
                    node: partition.node.clone()?,
                    departure,
                    claimed: partition.state == PartitionState::Claimed,
                    transferable: partition.transferable,
                    strategy: self.batch_of(partition).strategy,
                };
                Some((index, orphan))
            })
            .unzip();
        let fates = rehome(&described, &self.live_loads());
        let mut reassigned = Reassigned::default();
        for (index, fate) in indexes.into_iter().zip(fates) {
            let partition = &mut self.partitions[index];
            match fate {
                Fate::Requeue(node) => {
                    let from = std::mem::replace(&mut partition.node, node);
                    let from = from.expect("an orphan has a node");
                    partition.state = PartitionState::Pending;
                    let moved = partition.clone();
                    self.record_move(&moved, from, MoveReason::Failover, None, now);
                    reassigned.moved.push(moved);
                }
                Fate::Fail(reason) => {
                    partition.state = PartitionState::Failed;
                    partition.error = Some(reason);
                    partition.finished_at = Some(now);
                    reassigned.failed.push(partition.clone());
                }
            }
        }
        if !reassigned.moved.is_empty() {
            self.pending_writes += 1;
        }
        reassigned
    }
}

fn check_limit(what: &str, limit: u32) -> Result<()> {
    if limit == 0 || limit > MAX_PAGE_SIZE {
        return Err(Error::invalid_input(format!(
            "invalid {what} {limit}: expected 1 to {MAX_PAGE_SIZE}"
        )));
    }
    Ok(())
}
