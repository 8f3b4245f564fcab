//! Batches of partitioned jobs and their partitions.

use baton::core::cluster::{BatchJob, Partition, PartitionMove};
use serde::Serialize;

use super::{PageView, instant, maybe_instant};

/// One run of a partitioned job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BatchView {
    /// The store's id.
    pub id: i64,
    /// The partitioned job it runs.
    pub job: String,
    /// How its partitions were assigned, such as `round-robin`.
    pub strategy: String,
    /// Whether idle nodes take pending partitions from the busiest.
    pub stealing: bool,
    /// `running`, `succeeded` or `failed`.
    pub state: &'static str,
    /// When it was created.
    pub created_at: String,
    /// When it finished.
    pub finished_at: Option<String>,
    /// For a failed batch: how many partitions failed, and the first ones with their errors.
    pub failure: Option<String>,
}

impl From<&BatchJob> for BatchView {
    fn from(batch: &BatchJob) -> Self {
        BatchView {
            id: batch.id,
            job: batch.name.to_string(),
            strategy: batch.strategy.to_string(),
            stealing: batch.stealing,
            state: batch.state.as_str(),
            created_at: instant(batch.created_at),
            finished_at: maybe_instant(batch.finished_at),
            failure: batch.failure.clone(),
        }
    }
}

/// One partition of a batch. Its parameters, checkpoint and result are left out: they can be
/// large, and are the job's own business.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PartitionView {
    /// The store's id.
    pub id: i64,
    /// The batch it belongs to.
    pub batch: i64,
    /// Its key, unique within the batch.
    pub key: String,
    /// `pending`, `claimed`, `completed` or `failed`.
    pub state: &'static str,
    /// The node it is assigned to or claimed by.
    pub node: Option<String>,
    /// The token of its latest claim.
    pub token: Option<u64>,
    /// Whether it may resume on another node when its node is lost.
    pub transferable: bool,
    /// How many times it was claimed.
    pub attempts: u32,
    /// Units of work done, as last reported by its node.
    pub progress: u64,
    /// When it was last claimed.
    pub claimed_at: Option<String>,
    /// The last heartbeat or checkpoint of its latest claim.
    pub heartbeat_at: Option<String>,
    /// When it reached a final state.
    pub finished_at: Option<String>,
    /// Why it failed.
    pub error: Option<String>,
}

impl From<&Partition> for PartitionView {
    fn from(partition: &Partition) -> Self {
        PartitionView {
            id: partition.id,
            batch: partition.batch,
            key: partition.key.to_string(),
            state: partition.state.as_str(),
            node: partition.node.as_ref().map(ToString::to_string),
            token: partition.token.map(|token| token.get()),
            transferable: partition.transferable,
            attempts: partition.attempts,
            progress: partition.progress,
            claimed_at: maybe_instant(partition.claimed_at),
            heartbeat_at: maybe_instant(partition.heartbeat_at),
            finished_at: maybe_instant(partition.finished_at),
            error: partition.error.clone(),
        }
    }
}

/// One move of a partition between nodes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveView {
    /// Position in the history of moves.
    pub id: i64,
    /// The batch.
    pub batch: i64,
    /// The partition's id.
    pub partition: i64,
    /// The partition's key.
    pub key: String,
    /// The node it left.
    pub from: String,
    /// The node it went to; `None`: any node may claim it.
    pub to: Option<String>,
    /// `join`, `steal` or `failover`.
    pub reason: &'static str,
    /// The token the move issued (`None` for a failover).
    pub token: Option<u64>,
    /// When, on the store's clock.
    pub at: String,
}

impl From<&PartitionMove> for MoveView {
    fn from(moved: &PartitionMove) -> Self {
        MoveView {
            id: moved.id,
            batch: moved.batch,
            partition: moved.partition,
            key: moved.key.to_string(),
            from: moved.from.to_string(),
            to: moved.to.as_ref().map(ToString::to_string),
            reason: moved.reason.as_str(),
            token: moved.token.map(|token| token.get()),
            at: instant(moved.at),
        }
    }
}

/// One batch and a page of its partitions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BatchDetailView {
    /// The batch.
    pub batch: BatchView,
    /// A page of its partitions, by id.
    pub partitions: PageView<PartitionView>,
}
