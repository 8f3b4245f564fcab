//! [`ClusterStore`] through a layer.

use async_trait::async_trait;

use super::{Layer, Layered};
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
use crate::time::StoreTime;

#[async_trait]
impl<L: Layer> ClusterStore for Layered<dyn ClusterStore, L> {
    async fn node_register(&self, params: NodeRegisterParams) -> Result<Node> {
        self.through("node_register", self.inner.node_register(params)).await
    }

    async fn node_heartbeat(&self, params: NodeHeartbeatParams) -> Result<NodeHeartbeatOutcome> {
        self.through("node_heartbeat", self.inner.node_heartbeat(params)).await
    }

    async fn node_leave(&self, params: NodeLeaveParams) -> Result<Node> {
        self.through("node_leave", self.inner.node_leave(params)).await
    }

    async fn node_list(&self, params: NodeListParams) -> Result<Page<Node>> {
        self.through("node_list", self.inner.node_list(params)).await
    }

    async fn node_sweep(&self, params: NodeSweepParams) -> Result<Swept> {
        self.through("node_sweep", self.inner.node_sweep(params)).await
    }

    async fn node_changes(&self, params: NodeChangesParams) -> Result<Page<NodeChange>> {
        self.through("node_changes", self.inner.node_changes(params)).await
    }

    async fn batch_create(&self, params: BatchCreateParams) -> Result<BatchJob> {
        self.through("batch_create", self.inner.batch_create(params)).await
    }

    async fn batch_get(&self, id: i64) -> Result<Option<BatchJob>> {
        self.through("batch_get", self.inner.batch_get(id)).await
    }

    async fn batch_list(&self, params: BatchListParams) -> Result<Page<BatchJob>> {
        self.through("batch_list", self.inner.batch_list(params)).await
    }

    async fn batch_finish(&self, id: i64) -> Result<BatchJob> {
        self.through("batch_finish", self.inner.batch_finish(id)).await
    }

    async fn partition_list(&self, params: PartitionListParams) -> Result<Page<Partition>> {
        self.through("partition_list", self.inner.partition_list(params)).await
    }

    async fn partition_claim(&self, params: PartitionClaimParams) -> Result<Vec<Partition>> {
        self.through("partition_claim", self.inner.partition_claim(params)).await
    }

    async fn partition_checkpoint(&self, params: PartitionCheckpointParams) -> Result<Partition> {
        self.through("partition_checkpoint", self.inner.partition_checkpoint(params)).await
    }

    async fn partition_complete(&self, params: PartitionCompleteParams) -> Result<Partition> {
        self.through("partition_complete", self.inner.partition_complete(params)).await
    }

    async fn partition_fail(&self, params: PartitionFailParams) -> Result<Partition> {
        self.through("partition_fail", self.inner.partition_fail(params)).await
    }

    async fn partition_reassign(&self, params: PartitionReassignParams) -> Result<Reassigned> {
        self.through("partition_reassign", self.inner.partition_reassign(params)).await
    }

    async fn partition_move(&self, params: PartitionMoveParams) -> Result<Vec<Partition>> {
        self.through("partition_move", self.inner.partition_move(params)).await
    }

    async fn partition_moves(&self, params: PartitionMovesParams) -> Result<Page<PartitionMove>> {
        self.through("partition_moves", self.inner.partition_moves(params)).await
    }

    async fn subscribe_pending(&self) -> Result<Option<Box<dyn PendingChanges>>> {
        self.through("subscribe_pending", self.inner.subscribe_pending()).await
    }

    async fn now(&self) -> Result<StoreTime> {
        self.through("cluster_store_now", self.inner.now()).await
    }
}
