//! The PostgreSQL `ClusterStore`.
//!
//! Nodes live in `baton_nodes` with their history in `baton_node_changes`, batches in
//! `baton_batches`, their partitions in `baton_partitions` and their moves in
//! `baton_partition_moves`; times are milliseconds on the
//! server's clock, and registration and claim tokens come from `baton_fencing_tokens`, the
//! sequence leases and executions draw from. Every operation is one statement and one commit
//! (a heartbeat too, whatever the number of partitions), except finishing a batch, which reads
//! its tally and then, once every partition is final, records the verdict
//! [`verdict`](baton_core::cluster::verdict) gives. What becomes of the partitions of a departed
//! node is decided in the database by `baton_partition_fates` (migration `0005_cluster.sql`),
//! which mirrors [`rehome`](baton_core::cluster::rehome), so that registering, leaving and
//! reassigning rehome them in the same statement. How each statement stays correct against the
//! others under READ COMMITTED is explained at the top of its file in `queries/`. Creating a
//! batch, moving partitions, and rehoming that requeues them, notify [`PENDING_CHANNEL`](crate::PENDING_CHANNEL)
//! in the same statement, so that nodes claim at once.

mod batches;
mod nodes;
mod partitions;
mod reads;
mod rows;

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
use baton_core::{Error, ErrorKind, Page, Result, StoreTime};
use sqlx::postgres::PgConnectOptions;

use crate::connections::Connections;
use crate::wakeups;

/// Cluster nodes, batches and partitions stored in PostgreSQL.
///
/// Cheap to clone: clones share the connections. Obtain one from
/// [`PostgresBackend::cluster`](crate::PostgresBackend::cluster).
#[derive(Clone)]
pub struct PostgresClusterStore {
    connections: Connections,
    options: Arc<PgConnectOptions>,
}

impl std::fmt::Debug for PostgresClusterStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresClusterStore").finish_non_exhaustive()
    }
}

impl PostgresClusterStore {
    pub(crate) fn new(connections: Connections, options: Arc<PgConnectOptions>) -> Self {
        PostgresClusterStore { connections, options }
    }
}

fn internal(message: String) -> Error {
    Error::new(ErrorKind::Internal, message)
}

/// Checks the limit of a claim or a reassignment, as the reference store words it.
fn check_limit(what: &str, limit: u32) -> Result<()> {
    if limit == 0 || limit > MAX_PAGE_SIZE {
        return Err(Error::invalid_input(format!(
            "invalid {what} {limit}: expected 1 to {MAX_PAGE_SIZE}"
        )));
    }
    Ok(())
}

/// A count as a `BIGINT` column holds it; counts beyond `i64::MAX` are kept as `i64::MAX`.
fn stored_count(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

#[async_trait]
impl ClusterStore for PostgresClusterStore {
    async fn node_register(&self, params: NodeRegisterParams) -> Result<Node> {
        self.register(params).await
    }

    async fn node_heartbeat(&self, params: NodeHeartbeatParams) -> Result<NodeHeartbeatOutcome> {
        self.beat(params).await
    }

    async fn node_leave(&self, params: NodeLeaveParams) -> Result<Node> {
        self.leave(params).await
    }

    async fn node_list(&self, params: NodeListParams) -> Result<Page<Node>> {
        self.list_nodes(params).await
    }

    async fn node_sweep(&self, params: NodeSweepParams) -> Result<Swept> {
        self.sweep(params).await
    }

    async fn node_changes(&self, params: NodeChangesParams) -> Result<Page<NodeChange>> {
        self.list_changes(params).await
    }

    async fn batch_create(&self, params: BatchCreateParams) -> Result<BatchJob> {
        self.create_batch(params).await
    }

    async fn batch_get(&self, id: i64) -> Result<Option<BatchJob>> {
        self.get_batch(id).await
    }

    async fn batch_list(&self, params: BatchListParams) -> Result<Page<BatchJob>> {
        self.list_batches(params).await
    }

    async fn batch_finish(&self, id: i64) -> Result<BatchJob> {
        self.finish_batch(id).await
    }

    async fn partition_list(&self, params: PartitionListParams) -> Result<Page<Partition>> {
        self.list_partitions(params).await
    }

    async fn partition_claim(&self, params: PartitionClaimParams) -> Result<Vec<Partition>> {
        self.claim(params).await
    }

    async fn partition_checkpoint(&self, params: PartitionCheckpointParams) -> Result<Partition> {
        self.checkpoint(params).await
    }

    async fn partition_complete(&self, params: PartitionCompleteParams) -> Result<Partition> {
        self.complete(params).await
    }

    async fn partition_fail(&self, params: PartitionFailParams) -> Result<Partition> {
        self.fail(params).await
    }

    async fn partition_reassign(&self, params: PartitionReassignParams) -> Result<Reassigned> {
        self.reassign(params).await
    }

    async fn partition_move(&self, params: PartitionMoveParams) -> Result<Vec<Partition>> {
        self.move_pending(params).await
    }

    async fn partition_moves(&self, params: PartitionMovesParams) -> Result<Page<PartitionMove>> {
        self.list_moves(params).await
    }

    async fn subscribe_pending(&self) -> Result<Option<Box<dyn PendingChanges>>> {
        wakeups::subscribe_pending(&self.options).await.map(Some)
    }

    async fn now(&self) -> Result<StoreTime> {
        self.clock().await
    }
}
