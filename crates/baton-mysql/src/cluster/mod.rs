//! The MySQL `ClusterStore`: nodes and their history in `baton_nodes` and
//! `baton_node_changes`, batches and partitions in `baton_batches` and `baton_partitions`,
//! tokens and the `pending` wake-up count in `baton_cluster_counters`.
//!
//! Every write is one transaction at READ COMMITTED and one commit. MySQL has no
//! `UPDATE … RETURNING`, so each transaction locks the rows it decides on, reads them (with
//! the server's clock, `SYSDATE(6)`, read after the locks), decides with the core's rules
//! ([`next_state`](baton_core::cluster::next_state),
//! [`rehome`](baton_core::cluster::rehome), [`verdict`](baton_core::cluster::verdict)) and
//! writes the outcome. Rows are locked in one order (a node record, then partitions by id or
//! with SKIP LOCKED, then the counters; see `migrations/0010_nodes.sql`), and a transaction
//! rolled back whole by a deadlock or a lock wait timeout runs again (see `crate::tx`). Claims,
//! sweeps and reassignments lock with SKIP LOCKED and never wait for each other.

mod batches;
pub(crate) mod lists;
mod moves;
mod nodes;
mod partitions;
mod reads;
mod rehome;
mod rows;
mod sweep;
mod tokens;

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
use baton_core::{Error, Page, Result, StoreTime};
use sqlx::{MySqlConnection, MySqlPool};

use crate::error::query_error;
use crate::queries::NOW;
use crate::tx::Failure;
use crate::wakeups::Bell;

/// Cluster nodes, partitioned batches and their partitions stored in MySQL or MariaDB.
///
/// Cheap to clone: clones share the connections. Obtain one from
/// [`MysqlBackend::cluster`](crate::MysqlBackend::cluster).
#[derive(Clone)]
pub struct MysqlClusterStore {
    inner: Arc<Inner>,
}

struct Inner {
    pool: MySqlPool,
    bell: Bell,
}

impl std::fmt::Debug for MysqlClusterStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MysqlClusterStore").finish_non_exhaustive()
    }
}

impl MysqlClusterStore {
    pub(crate) fn new(pool: MySqlPool, bell: Bell) -> Self {
        MysqlClusterStore { inner: Arc::new(Inner { pool, bell }) }
    }
}

/// The server's time, read inside a transaction after the locks it took so far.
async fn now(conn: &mut MySqlConnection) -> Result<StoreTime, Failure> {
    let ms: i64 = sqlx::query_scalar(NOW).fetch_one(conn).await?;
    Ok(StoreTime::from_millis(ms))
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

#[async_trait]
impl ClusterStore for MysqlClusterStore {
    async fn node_register(&self, params: NodeRegisterParams) -> Result<Node> {
        params.check()?;
        nodes::register(&self.inner, &params).await
    }

    async fn node_heartbeat(&self, params: NodeHeartbeatParams) -> Result<NodeHeartbeatOutcome> {
        nodes::heartbeat(&self.inner, &params).await
    }

    async fn node_leave(&self, params: NodeLeaveParams) -> Result<Node> {
        nodes::leave(&self.inner, &params).await
    }

    async fn node_list(&self, params: NodeListParams) -> Result<Page<Node>> {
        reads::nodes(&self.inner.pool, params).await
    }

    async fn node_sweep(&self, params: NodeSweepParams) -> Result<Swept> {
        sweep::sweep(&self.inner, &params).await
    }

    async fn node_changes(&self, params: NodeChangesParams) -> Result<Page<NodeChange>> {
        reads::node_changes(&self.inner.pool, params).await
    }

    async fn batch_create(&self, params: BatchCreateParams) -> Result<BatchJob> {
        params.check()?;
        batches::create(&self.inner, &params).await
    }

    async fn batch_get(&self, id: i64) -> Result<Option<BatchJob>> {
        reads::batch(&self.inner.pool, id).await
    }

    async fn batch_list(&self, params: BatchListParams) -> Result<Page<BatchJob>> {
        reads::batches(&self.inner.pool, params).await
    }

    async fn batch_finish(&self, id: i64) -> Result<BatchJob> {
        batches::finish(&self.inner, id).await
    }

    async fn partition_list(&self, params: PartitionListParams) -> Result<Page<Partition>> {
        reads::partitions(&self.inner.pool, params).await
    }

    async fn partition_claim(&self, params: PartitionClaimParams) -> Result<Vec<Partition>> {
        let limit = check_limit("claim limit", params.limit)?;
        partitions::claim(&self.inner, &params, limit).await
    }

    async fn partition_checkpoint(&self, params: PartitionCheckpointParams) -> Result<Partition> {
        partitions::checkpoint(&self.inner, &params).await
    }

    async fn partition_complete(&self, params: PartitionCompleteParams) -> Result<Partition> {
        partitions::complete(&self.inner, &params).await
    }

    async fn partition_fail(&self, params: PartitionFailParams) -> Result<Partition> {
        partitions::fail(&self.inner, &params).await
    }

    async fn partition_reassign(&self, params: PartitionReassignParams) -> Result<Reassigned> {
        rehome::reassign(&self.inner, params).await
    }

    async fn partition_move(&self, params: PartitionMoveParams) -> Result<Vec<Partition>> {
        moves::move_pending(&self.inner, &params).await
    }

    async fn partition_moves(&self, params: PartitionMovesParams) -> Result<Page<PartitionMove>> {
        moves::list(&self.inner.pool, params).await
    }

    async fn subscribe_pending(&self) -> Result<Option<Box<dyn PendingChanges>>> {
        let subscription = self.inner.bell.subscribe().await?;
        Ok(Some(Box::new(subscription)))
    }

    async fn now(&self) -> Result<StoreTime> {
        let doing = "reading the MySQL clock";
        let mut conn = self.inner.pool.acquire().await.map_err(|err| query_error(doing, err))?;
        let ms: i64 = sqlx::query_scalar(NOW)
            .fetch_one(&mut *conn)
            .await
            .map_err(|err| query_error(doing, err))?;
        Ok(StoreTime::from_millis(ms))
    }
}
