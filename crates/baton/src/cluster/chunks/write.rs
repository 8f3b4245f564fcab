//! The sink side of a chunked step: the chunk handed to the writer, and how the writer says
//! where its checkpoint went.

use std::future::Future;
use std::ops::Range;

use baton_core::cluster::PartitionCheckpointParams;
use baton_core::{FencingToken, Result};

/// The outputs of up to one commit interval of items, and the checkpoint to save with them.
#[derive(Debug)]
pub struct Chunk<O> {
    outputs: Vec<O>,
    first: u64,
    checkpoint: PartitionCheckpointParams,
}

impl<O> Chunk<O> {
    pub(super) fn new(outputs: Vec<O>, first: u64, checkpoint: PartitionCheckpointParams) -> Self {
        Chunk { outputs, first, checkpoint }
    }

    /// The outputs, one per item, in reading order.
    pub fn outputs(&self) -> &[O] {
        &self.outputs
    }

    /// The items' indexes within the partition, counted from 0 over every claim: a stable key
    /// for each output (`items().zip(outputs())`).
    pub fn items(&self) -> Range<u64> {
        self.first..self.checkpoint.progress
    }

    /// The checkpoint after this chunk, under the claim's token. A writer to the store's own
    /// database saves it with `checkpoint_in` (`baton::sqlite`, `baton::postgres`) in the
    /// transaction of its outputs.
    pub fn checkpoint(&self) -> &PartitionCheckpointParams {
        &self.checkpoint
    }

    /// The claim's fencing token, for a writer to a fenced sink.
    pub fn token(&self) -> FencingToken {
        self.checkpoint.token
    }

    pub(super) fn into_outputs(self) -> Vec<O> {
        self.outputs
    }
}

/// Where a writer put a chunk's checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Committed {
    /// Saved with `checkpoint_in` in the transaction that wrote the outputs: the chunk and its
    /// checkpoint committed together, so a resumed partition neither skips nor repeats it.
    WithCheckpoint,
    /// The outputs are durable in another sink; the step saves the checkpoint next, in a
    /// call of its own. A claim lost in between repeats the chunk when the partition resumes
    /// (at least once): make such writes idempotent, for instance keyed by
    /// [`Chunk::items`].
    OutputsOnly,
}

/// Writes each chunk's outputs, and with them its checkpoint where the sink allows.
pub trait ChunkWriter<O>: Send {
    /// Writes the chunk durably and answers where its checkpoint went. On an error nothing of
    /// the chunk may stay committed with its checkpoint: a transaction is rolled back (dropping
    /// it does), as it must be when `checkpoint_in` answers `LeaseLost` for a stale claim.
    fn write(&mut self, chunk: &Chunk<O>) -> impl Future<Output = Result<Committed>> + Send;
}
