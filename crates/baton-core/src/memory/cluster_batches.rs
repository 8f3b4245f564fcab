//! Batch operations of the in-memory `ClusterStore`: creation, reading, listing and
//! finishing batches, and listing their partitions.

use super::cluster_state::{ClusterRecords, index, number, page};
use crate::cluster::{
    BatchCreateParams, BatchJob, BatchListParams, BatchState, BatchTally, LISTED_FAILURES,
    Partition, PartitionListParams, PartitionState, batch_not_found, verdict,
};
use crate::error::Result;
use crate::page::Page;
use crate::time::StoreTime;

impl ClusterRecords {
    /// Creates a running batch and its pending partitions, or nothing if the input is bad.
    pub(super) fn batch_create(
        &mut self,
        params: BatchCreateParams,
        now: StoreTime,
    ) -> Result<BatchJob> {
        params.check()?;
        let batch = BatchJob {
            id: number(self.batches.len()),
            name: params.name,
            strategy: params.strategy,
            stealing: params.stealing,
            state: BatchState::Running,
            created_at: now,
            finished_at: None,
            failure: None,
        };
        let first = self.partitions.len();
        for assigned in params.partitions {
            self.partitions.push(Partition {
                id: number(self.partitions.len()),
                batch: batch.id,
                key: assigned.spec.key,
                params: assigned.spec.params,
                transferable: assigned.spec.transferable,
                state: PartitionState::Pending,
                node: assigned.node,
                token: None,
                checkpoint: None,
                result: None,
                attempts: 0,
                progress: 0,
                created_at: now,
                claimed_at: None,
                heartbeat_at: None,
                finished_at: None,
                error: None,
            });
        }
        self.batch_partitions.push(first..self.partitions.len());
        self.batches.push(batch.clone());
        self.pending_writes += 1;
        Ok(batch)
    }

    /// The batch numbered `id`.
    pub(super) fn batch(&self, id: i64) -> Option<&BatchJob> {
        self.batches.get(index(id)?)
    }

    /// One page of batches by id.
    pub(super) fn batch_list(&self, params: BatchListParams) -> Result<Page<BatchJob>> {
        let matching = self
            .batches
            .iter()
            .filter(|b| params.name.as_ref().is_none_or(|name| &b.name == name))
            .filter(|b| params.state.is_none_or(|state| b.state == state));
        page(matching, params.after, params.limit, |b| b.id)
    }

    /// Finishes a running batch whose partitions are all final.
    pub(super) fn batch_finish(&mut self, id: i64, now: StoreTime) -> Result<BatchJob> {
        let position =
            index(id).filter(|i| *i < self.batches.len()).ok_or_else(|| batch_not_found(id))?;
        if self.batches[position].state != BatchState::Running {
            return Ok(self.batches[position].clone());
        }
        let mut tally = BatchTally::default();
        for partition in &self.partitions[self.batch_partitions[position].clone()] {
            match partition.state {
                PartitionState::Failed => {
                    tally.failed += 1;
                    if tally.first_failed.len() < LISTED_FAILURES {
                        let error = partition.error.clone().unwrap_or_default();
                        tally.first_failed.push((partition.key.clone(), error));
                    }
                }
                state if !state.is_final() => tally.unfinished += 1,
                _ => {}
            }
        }
        let batch = &mut self.batches[position];
        if let Some(verdict) = verdict(&tally) {
            batch.state = verdict.state;
            batch.failure = verdict.failure;
            batch.finished_at = Some(now);
        }
        Ok(batch.clone())
    }

    /// One page of a batch's partitions by id.
    pub(super) fn partition_list(&self, params: PartitionListParams) -> Result<Page<Partition>> {
        let range = index(params.batch)
            .and_then(|i| self.batch_partitions.get(i))
            .cloned()
            .unwrap_or_default();
        let matching =
            self.partitions[range].iter().filter(|p| params.state.is_none_or(|s| p.state == s));
        page(matching, params.after, params.limit, |p| p.id)
    }
}
