//! The SQLite `ClusterStore`: nodes and their history in `baton_nodes` and
//! `baton_node_changes`, batches and partitions in `baton_batches` and `baton_partitions`,
//! every write one `BEGIN IMMEDIATE` transaction.
//!
//! The rules are the core's, applied inside the transaction (SQLite serialises writers, so
//! nothing changes underneath): the sweep moves nodes on by
//! [`next_state`](baton_core::cluster::next_state), rehoming decides each orphan's fate with
//! [`rehome`](baton_core::cluster::rehome), and finishing a batch takes its
//! [`verdict`](baton_core::cluster::verdict). Whatever touches many rows (a batch's partitions,
//! a claim, a heartbeat, the fates of orphans, the changes of a sweep) is one statement driven
//! by a JSON array, unpacked with `json_each`.
//!
//! After a commit that made partitions pending (a batch created, partitions requeued off a
//! departed node or moved by the leader), every subscriber of
//! [`subscribe_pending`](ClusterStore::subscribe_pending) in every process is woken through
//! the datagram sockets in `<database>.pending/`.

use std::sync::Arc;

use async_trait::async_trait;
use baton_core::cluster::{
    BatchCreateParams, BatchJob, BatchListParams, ClusterStore, Node, NodeChange,
    NodeChangesParams, NodeHeartbeatOutcome, NodeHeartbeatParams, NodeLeaveParams, NodeListParams,
    NodeRegisterParams, NodeSweepParams, Partition, PartitionCheckpointParams,
    PartitionClaimParams, PartitionCompleteParams, PartitionFailParams, PartitionListParams,
    PartitionMove, PartitionMoveParams, PartitionMovesParams, PartitionReassignParams,
    PendingChanges, Reassigned, Swept,
};
use baton_core::page::MAX_PAGE_SIZE;
use baton_core::time::{Clock, SystemClock};
use baton_core::{Error, Page, Result, StoreTime};
use sqlx::SqlitePool;

use crate::notify::{Notifier, WAKE_UP, WakeupSubscription};
use crate::tx::Writer;

mod batches;
mod moves;
mod nodes;
mod partitions;
mod reads;
mod rehome;
mod rows;
mod sweep;
mod tokens;

/// Cluster nodes, partitioned batches and their partitions stored in one SQLite file, shared
/// by every process on the host that opens it.
///
/// Each write is one `BEGIN IMMEDIATE` transaction whose store time is read once the write
/// lock is held, as in [`SqliteLeaseStore`](crate::SqliteLeaseStore). Node and partition
/// tokens come from the lease store's token counter, so they never collide with lease or
/// execution tokens and only grow. Reads go through the read pool.
///
/// Cloning is cheap; clones share the connection pools.
#[derive(Debug, Clone)]
pub struct SqliteClusterStore {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    write: Writer,
    read: SqlitePool,
    pending: Notifier,
    clock: SystemClock,
}

impl Inner {
    /// Store time; inside a write transaction, read once the write lock is held.
    fn now(&self) -> StoreTime {
        self.clock.now()
    }

    /// Wakes the claim loops of every process: partitions became pending.
    fn wake_claimers(&self) {
        self.pending.send(WAKE_UP);
    }
}

impl SqliteClusterStore {
    pub(crate) fn new(write: Writer, read: SqlitePool, pending: Notifier) -> Self {
        let inner = Inner { write, read, pending, clock: SystemClock };
        SqliteClusterStore { inner: Arc::new(inner) }
    }
}

#[async_trait]
impl ClusterStore for SqliteClusterStore {
    async fn node_register(&self, params: NodeRegisterParams) -> Result<Node> {
        nodes::register(&self.inner, params).await
    }

    async fn node_heartbeat(&self, params: NodeHeartbeatParams) -> Result<NodeHeartbeatOutcome> {
        nodes::heartbeat(&self.inner, params).await
    }

    async fn node_leave(&self, params: NodeLeaveParams) -> Result<Node> {
        nodes::leave(&self.inner, params).await
    }

    async fn node_list(&self, params: NodeListParams) -> Result<Page<Node>> {
        reads::nodes(&self.inner.read, params).await
    }

    async fn node_sweep(&self, params: NodeSweepParams) -> Result<Swept> {
        sweep::sweep(&self.inner, params).await
    }

    async fn node_changes(&self, params: NodeChangesParams) -> Result<Page<NodeChange>> {
        reads::node_changes(&self.inner.read, params).await
    }

    async fn batch_create(&self, params: BatchCreateParams) -> Result<BatchJob> {
        batches::create(&self.inner, params).await
    }

    async fn batch_get(&self, id: i64) -> Result<Option<BatchJob>> {
        reads::batch(&self.inner.read, id).await
    }

    async fn batch_list(&self, params: BatchListParams) -> Result<Page<BatchJob>> {
        reads::batches(&self.inner.read, params).await
    }

    async fn batch_finish(&self, id: i64) -> Result<BatchJob> {
        batches::finish(&self.inner, id).await
    }

    async fn partition_list(&self, params: PartitionListParams) -> Result<Page<Partition>> {
        reads::partitions(&self.inner.read, params).await
    }

    async fn partition_claim(&self, params: PartitionClaimParams) -> Result<Vec<Partition>> {
        partitions::claim(&self.inner, params).await
    }

    async fn partition_checkpoint(&self, params: PartitionCheckpointParams) -> Result<Partition> {
        partitions::checkpoint(&self.inner, params).await
    }

    async fn partition_complete(&self, params: PartitionCompleteParams) -> Result<Partition> {
        partitions::complete(&self.inner, params).await
    }

    async fn partition_fail(&self, params: PartitionFailParams) -> Result<Partition> {
        partitions::fail(&self.inner, params).await
    }

    async fn partition_reassign(&self, params: PartitionReassignParams) -> Result<Reassigned> {
        rehome::reassign(&self.inner, params).await
    }

    async fn partition_move(&self, params: PartitionMoveParams) -> Result<Vec<Partition>> {
        moves::move_pending(&self.inner, params).await
    }

    async fn partition_moves(&self, params: PartitionMovesParams) -> Result<Page<PartitionMove>> {
        moves::list(&self.inner.read, params).await
    }

    async fn subscribe_pending(&self) -> Result<Option<Box<dyn PendingChanges>>> {
        let subscription = self.inner.pending.subscribe()?;
        Ok(Some(Box::new(WakeupSubscription::new(subscription))))
    }

    async fn now(&self) -> Result<StoreTime> {
        Ok(self.inner.now())
    }
}

/// Checks how many rows one call may handle (claims, reassignments) against the largest page
/// size; `what` names the limit in the error.
fn check_limit(what: &str, limit: u32) -> Result<u32> {
    if limit == 0 || limit > MAX_PAGE_SIZE {
        return Err(Error::invalid_input(format!(
            "invalid {what} {limit}: expected 1 to {MAX_PAGE_SIZE}"
        )));
    }
    Ok(limit)
}

/// The error for a statement that changed another number of rows than the transaction had
/// just read.
fn mismatch(doing: &str, changed: usize, expected: usize) -> Error {
    Error::new(
        baton_core::ErrorKind::Internal,
        format!("SQLite store: {doing}: changed {changed} rows, expected {expected}"),
    )
}
