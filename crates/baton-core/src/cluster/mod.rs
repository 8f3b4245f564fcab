//! Cluster membership and partitioned batch jobs: node records and their liveness, batches
//! and partitions, the assignment strategies and failover rules as pure functions, and the
//! `ClusterStore` trait.
//!
//! A node registers (a new incarnation with a fencing token) and heartbeats on the store's
//! clock; the leader sweeps silent nodes to unreachable, then removed, and reassigns their
//! partitions. A batch is one run of a partitioned job: its partitioner's specs are checked,
//! assigned by a [`Strategy`] and stored at once; nodes claim, checkpoint and complete
//! partitions under tokens; the batch finishes when every partition is final.

mod assign;
mod batch;
mod batch_params;
mod change;
mod failover;
mod json;
mod liveness;
mod moves;
mod named;
mod node;
mod node_id;
mod node_params;
mod partition;
mod rebalance;
pub mod row;
mod spec;
mod store;
mod strategy;

pub use assign::assign;
pub use batch::{BatchJob, BatchState, BatchTally, LISTED_FAILURES, Verdict, verdict};
pub use batch_params::{
    AssignedPartition, BatchCreateParams, BatchListParams, MAX_ERROR_BYTES,
    PartitionCheckpointParams, PartitionClaimParams, PartitionCompleteParams, PartitionFailParams,
    PartitionListParams, PartitionReassignParams, Reassigned,
};
pub use change::{NodeChange, NodeChangeReason};
pub use failover::{Departure, Fate, Orphan, rehome};
pub use json::{JsonText, MAX_JSON_BYTES};
pub use liveness::{NodeThresholds, next_state};
pub use moves::{MoveReason, PartitionMove, PartitionMoveParams, PartitionMovesParams};
pub use node::{Node, NodeLoad, NodeState};
pub use node_id::NodeId;
pub use node_params::{
    NodeChangesParams, NodeHeartbeatOutcome, NodeHeartbeatParams, NodeLeaveParams, NodeListParams,
    NodeRegisterParams, NodeSweepParams, PartitionBeat, Swept,
};
pub use partition::{Partition, PartitionKey, PartitionState};
pub use rebalance::{PendingShare, plan_moves};
pub use spec::{MAX_PARAMS_BYTES, MAX_PARTITIONS, PartitionSpec, check_specs};
pub use store::{ClusterStore, PendingChanges, batch_not_found, node_lost, partition_lost};
pub use strategy::Strategy;
