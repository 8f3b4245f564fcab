//! The in-memory `ClusterStore`.

use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;

use super::cluster_state::ClusterRecords;
use super::wakeups::Wakeups;
use crate::cluster::{
    BatchCreateParams, BatchJob, BatchListParams, ClusterStore, Node, NodeChange,
    NodeChangesParams, NodeHeartbeatOutcome, NodeHeartbeatParams, NodeLeaveParams, NodeListParams,
    NodeRegisterParams, NodeSweepParams, Partition, PartitionCheckpointParams,
    PartitionClaimParams, PartitionCompleteParams, PartitionFailParams, PartitionListParams,
    PartitionMove, PartitionMoveParams, PartitionMovesParams, PartitionReassignParams,
    PendingChanges, Reassigned, Swept,
};
use crate::error::Result;
use crate::page::Page;
use crate::time::{Clock, StoreTime, SystemClock};

/// Nodes, batches and partitions kept in this process's memory, timed by an injected clock:
/// the reference semantics of [`ClusterStore`], which every backend's conformance run checks.
///
/// - **Numbers.** Nodes are numbered (`seq`) 1, 2, 3, … in order of first registration;
///   changes, batches and partitions by insertion, a batch's partitions in the order given.
/// - **Tokens.** One counter for the whole store, from 1, issued at every registration and
///   every claim and never reused. It is this store's own: a [`MemoryLeaseStore`] or
///   [`MemoryJobStore`] counts separately, so tokens are comparable within one store only.
/// - **Registration.** Registering an id again keeps its `seq`, replaces everything else,
///   records a `reregistered` change from the state it was in, and rehomes the partitions the
///   previous incarnation had claimed (`registered again as a new incarnation`); partitions
///   only assigned to the id stay for the new incarnation to claim.
/// - **Heartbeats.** A partition is lost unless it is claimed by the heartbeating node under
///   the token given.
/// - **Sweep.** Nodes in order of `seq`; each change is recorded with reason `no-heartbeat`.
/// - **Claims.** Pending partitions in id order, across batches; each claim of a partition
///   counts one attempt and issues the next token.
/// - **Rehoming.** Orphans in id order (see [`rehome`](crate::cluster::rehome)); a requeued
///   partition keeps its token, checkpoint, progress and attempts until its next claim.
/// - **Moves.** Numbered 1, 2, 3, … across batches; a rebalancing move takes the source's
///   pending partitions of the batch by descending id and issues each the next token.
/// - **Wake-ups.** Every pending feed is woken after a call that created a batch or requeued
///   a partition, and only then.
///
/// Everything sits behind one mutex, so this coordinates tasks of one process, not processes.
///
/// [`MemoryLeaseStore`]: super::MemoryLeaseStore
/// [`MemoryJobStore`]: super::MemoryJobStore
pub struct MemoryClusterStore {
    clock: Arc<dyn Clock>,
    records: Mutex<ClusterRecords>,
    pending: Arc<Wakeups>,
}

impl Default for MemoryClusterStore {
    fn default() -> Self {
        MemoryClusterStore::new()
    }
}

impl MemoryClusterStore {
    /// An empty store timed by the host's clock.
    pub fn new() -> Self {
        MemoryClusterStore::with_clock(Arc::new(SystemClock))
    }

    /// An empty store timed by `clock`.
    pub fn with_clock(clock: Arc<dyn Clock>) -> Self {
        MemoryClusterStore { clock, records: Mutex::default(), pending: Arc::default() }
    }

    fn lock(&self) -> MutexGuard<'_, ClusterRecords> {
        self.records.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs a write that may make partitions pending, and wakes the pending feeds if it did.
    fn write<T>(&self, op: impl FnOnce(&mut ClusterRecords) -> T) -> T {
        let mut records = self.lock();
        let before = records.pending_writes;
        let outcome = op(&mut records);
        let made_pending = records.pending_writes != before;
        drop(records);
        if made_pending {
            self.pending.raise();
        }
        outcome
    }
}

#[async_trait]
impl ClusterStore for MemoryClusterStore {
    async fn node_register(&self, params: NodeRegisterParams) -> Result<Node> {
        self.write(|records| records.register(params, self.clock.now()))
    }

    async fn node_heartbeat(&self, params: NodeHeartbeatParams) -> Result<NodeHeartbeatOutcome> {
        self.lock().heartbeat(params, self.clock.now())
    }

    async fn node_leave(&self, params: NodeLeaveParams) -> Result<Node> {
        self.write(|records| records.leave(params, self.clock.now()))
    }

    async fn node_list(&self, params: NodeListParams) -> Result<Page<Node>> {
        self.lock().node_list(params)
    }

    async fn node_sweep(&self, params: NodeSweepParams) -> Result<Swept> {
        Ok(self.lock().sweep(params, self.clock.now()))
    }

    async fn node_changes(&self, params: NodeChangesParams) -> Result<Page<NodeChange>> {
        self.lock().node_changes(params)
    }

    async fn batch_create(&self, params: BatchCreateParams) -> Result<BatchJob> {
        self.write(|records| records.batch_create(params, self.clock.now()))
    }

    async fn batch_get(&self, id: i64) -> Result<Option<BatchJob>> {
        Ok(self.lock().batch(id).cloned())
    }

    async fn batch_list(&self, params: BatchListParams) -> Result<Page<BatchJob>> {
        self.lock().batch_list(params)
    }

    async fn batch_finish(&self, id: i64) -> Result<BatchJob> {
        self.lock().batch_finish(id, self.clock.now())
    }

    async fn partition_list(&self, params: PartitionListParams) -> Result<Page<Partition>> {
        self.lock().partition_list(params)
    }

    async fn partition_claim(&self, params: PartitionClaimParams) -> Result<Vec<Partition>> {
        self.lock().claim(params, self.clock.now())
    }

    async fn partition_checkpoint(&self, params: PartitionCheckpointParams) -> Result<Partition> {
        self.lock().checkpoint(params, self.clock.now())
    }

    async fn partition_complete(&self, params: PartitionCompleteParams) -> Result<Partition> {
        self.lock().complete(params, self.clock.now())
    }

    async fn partition_fail(&self, params: PartitionFailParams) -> Result<Partition> {
        self.lock().fail(params, self.clock.now())
    }

    async fn partition_reassign(&self, params: PartitionReassignParams) -> Result<Reassigned> {
        self.write(|records| records.reassign(params, self.clock.now()))
    }

    async fn partition_move(&self, params: PartitionMoveParams) -> Result<Vec<Partition>> {
        self.write(|records| records.move_pending(params, self.clock.now()))
    }

    async fn partition_moves(&self, params: PartitionMovesParams) -> Result<Page<PartitionMove>> {
        self.lock().moves(params)
    }

    async fn subscribe_pending(&self) -> Result<Option<Box<dyn PendingChanges>>> {
        Ok(Some(Box::new(self.pending.subscribe())))
    }

    async fn now(&self) -> Result<StoreTime> {
        Ok(self.clock.now())
    }
}
