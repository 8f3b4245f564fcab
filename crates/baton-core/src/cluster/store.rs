//! The `ClusterStore` trait the SQL backends implement, and the errors every store answers
//! alike.

use async_trait::async_trait;

use super::{
    BatchCreateParams, BatchJob, BatchListParams, Node, NodeChange, NodeChangesParams,
    NodeHeartbeatOutcome, NodeHeartbeatParams, NodeId, NodeLeaveParams, NodeListParams,
    NodeRegisterParams, NodeSweepParams, Partition, PartitionCheckpointParams,
    PartitionClaimParams, PartitionCompleteParams, PartitionFailParams, PartitionListParams,
    PartitionMove, PartitionMoveParams, PartitionMovesParams, PartitionReassignParams, Reassigned,
    Swept,
};
use crate::error::{Error, ErrorKind, Result};
use crate::lease::FencingToken;
use crate::page::Page;
use crate::time::StoreTime;

/// The error for an operation of a node incarnation that is no longer active under `token`.
pub fn node_lost(node: &NodeId, token: FencingToken) -> Error {
    Error::lease_lost(format!("node {node} is no longer active under token {token}"))
}

/// The error for a write to a partition that is no longer claimed under `token`.
pub fn partition_lost(id: i64, token: FencingToken) -> Error {
    Error::lease_lost(format!("partition {id} is no longer claimed under token {token}"))
}

/// The error for an operation on a batch that does not exist.
pub fn batch_not_found(id: i64) -> Error {
    Error::new(ErrorKind::NotFound, format!("batch {id} does not exist"))
}

/// A feed of "partitions became pending" wake-ups, so that nodes claim a new batch, or the
/// partitions moved off a departed node, at once rather than at their next poll.
#[async_trait]
pub trait PendingChanges: Send {
    /// Waits for the next wake-up. An error means the feed broke; subscribe again.
    async fn next(&mut self) -> Result<()>;
}

/// A store of cluster nodes, partitioned batches and their partitions.
///
/// Every implementation passes the cluster-store conformance suite in `baton-testkit`, and
/// does each method in one transaction so that a failed call changes nothing:
///
/// - **Tokens.** Registration and every claim issue a fencing token greater than any the
///   store issued before, from the counter its leases use where it has one.
/// - **Nodes** (I8). One record per id. A registration starts a new incarnation; the
///   previous one is fenced at once: its heartbeat, leave and claims answer `LeaseLost`, and
///   its claimed partitions are handled as those of a departed node (see
///   [`rehome`](super::rehome)). Only the sweep moves a node on by time, judged on the store's
///   clock, and every state change is recorded.
/// - **Partitions** (I7). A pending partition is claimed by at most one node at a time:
///   claims take pending partitions of running batches assigned to the claimer or to no one,
///   by id. Checkpoint, complete and fail are compare-and-set on the claim's token and answer
///   `LeaseLost` (changing nothing) when it is not current. A final partition never changes.
/// - **Failover.** A partition assigned to or claimed by a node that is not active is moved or
///   failed by [`rehome`](super::rehome), keeping its checkpoint; a new claim resumes from it.
///   Each partition requeued is recorded as a [`failover`](super::MoveReason::Failover) move.
/// - **Rebalancing.** Only pending partitions of a running batch move between active nodes,
///   each under a new token and recorded, by [`partition_move`](Self::partition_move).
/// - **Batches.** Created with all their partitions at once, after
///   [`BatchCreateParams::check`]; finished by [`batch_finish`](Self::batch_finish) once every
///   partition is final, by [`verdict`](super::verdict).
#[async_trait]
pub trait ClusterStore: Send + Sync + 'static {
    /// Registers a node as a new incarnation under a new token, active from now; a previous
    /// incarnation of the same id is fenced and its claimed partitions rehomed.
    async fn node_register(&self, params: NodeRegisterParams) -> Result<Node>;

    /// Stamps the heartbeat of an active node and of each listed partition it still holds
    /// under the given token, with their progress; answers the partitions it lost. `LeaseLost`
    /// if the node is not active under its token. Backends do this in O(1) statements.
    async fn node_heartbeat(&self, params: NodeHeartbeatParams) -> Result<NodeHeartbeatOutcome>;

    /// Marks an active node as left and rehomes its partitions at once; `LeaseLost` if the
    /// node is not active under its token.
    async fn node_leave(&self, params: NodeLeaveParams) -> Result<Node>;

    /// Lists nodes by [`Node::seq`].
    async fn node_list(&self, params: NodeListParams) -> Result<Page<Node>>;

    /// Moves every active or unreachable node on by [`next_state`](super::next_state) at the
    /// store's current time, and records and answers the changes (the leader's job), with
    /// that time and the oldest heartbeat of the nodes left active.
    async fn node_sweep(&self, params: NodeSweepParams) -> Result<Swept>;

    /// Reads the history of node state changes, oldest first.
    async fn node_changes(&self, params: NodeChangesParams) -> Result<Page<NodeChange>>;

    /// Creates a running batch with all its partitions pending, as assigned; nothing is
    /// stored if [`BatchCreateParams::check`] fails.
    async fn batch_create(&self, params: BatchCreateParams) -> Result<BatchJob>;

    /// Reads one batch.
    async fn batch_get(&self, id: i64) -> Result<Option<BatchJob>>;

    /// Lists batches by id.
    async fn batch_list(&self, params: BatchListParams) -> Result<Page<BatchJob>>;

    /// Finishes a running batch whose partitions are all final, by
    /// [`verdict`](super::verdict); answers the batch as stored afterwards (still running when
    /// some partitions are not final). `NotFound` for an unknown batch.
    async fn batch_finish(&self, id: i64) -> Result<BatchJob>;

    /// Lists a batch's partitions by id (an unknown batch has none).
    async fn partition_list(&self, params: PartitionListParams) -> Result<Page<Partition>>;

    /// Claims pending partitions of running batches assigned to the node or to no one, by id,
    /// each under a new token. `LeaseLost` if the node is not active under its token.
    async fn partition_claim(&self, params: PartitionClaimParams) -> Result<Vec<Partition>>;

    /// Replaces a claimed partition's checkpoint and progress (compare-and-set on its token).
    async fn partition_checkpoint(&self, params: PartitionCheckpointParams) -> Result<Partition>;

    /// Completes a claimed partition with its result (compare-and-set on its token).
    async fn partition_complete(&self, params: PartitionCompleteParams) -> Result<Partition>;

    /// Fails a claimed partition with an error (compare-and-set on its token).
    async fn partition_fail(&self, params: PartitionFailParams) -> Result<Partition>;

    /// Rehomes, by id and up to the limit, the pending and claimed partitions of running
    /// batches whose node is not active (the leader's job, after a sweep).
    async fn partition_reassign(&self, params: PartitionReassignParams) -> Result<Reassigned>;

    /// Moves the pending partitions of a running batch with the greatest ids from one node to
    /// an active one, as [`PartitionMoveParams`] bounds it, each under a new token, and records
    /// each move; answers the partitions moved, by id (none when the batch is not running, the
    /// target is not active, or the source holds no more than it keeps).
    async fn partition_move(&self, params: PartitionMoveParams) -> Result<Vec<Partition>>;

    /// Lists a batch's moves, oldest first (an unknown batch has none).
    async fn partition_moves(&self, params: PartitionMovesParams) -> Result<Page<PartitionMove>>;

    /// Subscribes to the wake-ups sent after a commit made partitions pending for others to
    /// claim: a batch created, partitions moved off a departed node (by a reassignment, a
    /// leave or a registration again) or moved by the leader; `None` when the backend cannot
    /// notify. The feed is live once this returns. Wake-ups are best effort: a node keeps
    /// polling as a fallback.
    async fn subscribe_pending(&self) -> Result<Option<Box<dyn PendingChanges>>>;

    /// The store's current time, the clock every threshold is judged by.
    async fn now(&self) -> Result<StoreTime>;
}
