//! What a partition handler learns about the partition it runs, and how it saves progress.

use std::sync::Arc;

use baton_core::cluster::{JsonText, Partition, PartitionCheckpointParams, PartitionKey};
use baton_core::schedule::JobName;
use baton_core::{ErrorKind, FencingToken, Result};
use tokio_util::sync::CancellationToken;

use super::worker::Worker;

/// The partition a handler runs: what to work on, where to resume from, its fencing token
/// and its cancellation.
///
/// Pass [`PartitionContext::token`] to every write the partition makes through a fenced sink:
/// when its node is lost and the partition resumes elsewhere, the new claim's token is
/// greater, and the lost node's late writes are rejected.
#[derive(Clone)]
pub struct PartitionContext {
    worker: Arc<Worker>,
    job: JobName,
    partition: Arc<Partition>,
    token: FencingToken,
    cancel: CancellationToken,
}

impl std::fmt::Debug for PartitionContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PartitionContext")
            .field("job", &self.job)
            .field("partition", &self.partition.id)
            .field("key", &self.partition.key)
            .field("token", &self.token)
            .finish_non_exhaustive()
    }
}

impl PartitionContext {
    pub(crate) fn new(
        worker: Arc<Worker>,
        job: JobName,
        partition: Partition,
        token: FencingToken,
        cancel: CancellationToken,
    ) -> Self {
        PartitionContext { worker, job, partition: Arc::new(partition), token, cancel }
    }

    /// The partitioned job.
    pub fn job(&self) -> &JobName {
        &self.job
    }

    /// The batch (one run of the job) the partition belongs to.
    pub fn batch(&self) -> i64 {
        self.partition.batch
    }

    /// The partition's id in the store.
    pub fn id(&self) -> i64 {
        self.partition.id
    }

    /// The partition's key, unique within its batch.
    pub fn key(&self) -> &PartitionKey {
        &self.partition.key
    }

    /// What to work on, as the partitioner described it.
    pub fn params(&self) -> &JsonText {
        &self.partition.params
    }

    /// The checkpoint to resume from: the last one saved by any claim of this partition, or
    /// `None` on a fresh start.
    pub fn resume_from(&self) -> Option<&JsonText> {
        self.partition.checkpoint.as_ref()
    }

    /// 1 for the first claim of the partition, 2 and up after it moved.
    pub fn attempt(&self) -> u32 {
        self.partition.attempts
    }

    /// This claim's fencing token.
    pub fn token(&self) -> FencingToken {
        self.token
    }

    /// Saves where a later claim resumes from, with the units of work done so far, replacing
    /// the previous checkpoint. A compare-and-set on this claim's token: `LeaseLost` means the
    /// partition is no longer this node's (or the node could not confirm it is alive in
    /// time), and the handler must stop. A handler stopped by a shutdown may still save its
    /// progress before it returns, so that the next node resumes from there.
    pub async fn checkpoint(&self, state: JsonText, progress: u64) -> Result<()> {
        self.ensure_valid()?;
        let params = PartitionCheckpointParams {
            id: self.id(),
            token: self.token,
            checkpoint: state,
            progress,
        };
        match self.worker.store().partition_checkpoint(params).await {
            Ok(_) => {
                self.worker.set_progress(self.id(), progress);
                Ok(())
            }
            Err(err) => {
                if err.kind() == ErrorKind::LeaseLost {
                    self.worker.lost(self.id());
                }
                Err(err)
            }
        }
    }

    /// Reports the units of work done so far without saving a checkpoint; the next heartbeat
    /// carries it to the store.
    pub fn set_progress(&self, progress: u64) {
        self.worker.set_progress(self.id(), progress);
    }

    /// Checks right now, without a store call, that the partition may still act: its node
    /// confirmed it is alive recently enough and the partition was not lost. Call it before
    /// every external write; it fails with `LeaseLost` once the handler must stop.
    pub fn ensure_valid(&self) -> Result<()> {
        self.worker.ensure_valid(self.id(), self.token)
    }

    /// Resolves when the handler must stop: the partition was lost, its node is fenced or
    /// could not confirm it is alive in time, or the node shuts down and the grace is over.
    pub async fn cancelled(&self) {
        self.cancel.cancelled().await;
    }

    /// Whether the handler must stop.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// The cancellation token, to hand to tasks the handler starts.
    pub fn cancellation_token(&self) -> CancellationToken {
        self.cancel.clone()
    }
}
