//! Reading the record: keyset pages of nodes, node changes, batches and partitions, one batch,
//! and the server's clock.

use baton_core::cluster::{
    BatchJob, BatchListParams, Node, NodeChange, NodeChangesParams, NodeListParams, Partition,
    PartitionListParams, PartitionMove, PartitionMovesParams,
};
use baton_core::page::check_page_size;
use baton_core::{Cursor, Page, Result, StoreTime};

use super::{PostgresClusterStore, internal, rows};
use crate::queries::{
    BATCH_GET, BATCH_LIST, NODE_CHANGES, NODE_LIST, NOW, PARTITION_LIST, PARTITION_MOVES,
};
use crate::row;

impl PostgresClusterStore {
    pub(super) async fn list_nodes(&self, params: NodeListParams) -> Result<Page<Node>> {
        let limit = check_page_size(params.limit)?;
        let query = sqlx::query(NODE_LIST)
            .bind(params.after.map_or(0, Cursor::last_id))
            .bind(params.state.map(|state| state.as_str()))
            .bind(i64::from(limit) + 1);
        let found = self.connections.fetch_all(query, || "listing nodes".to_string()).await?;
        let nodes = found.iter().map(rows::node).collect::<Result<Vec<_>>>()?;
        Ok(Page::from_fetched(nodes, limit, |node| node.seq))
    }

    pub(super) async fn list_changes(&self, params: NodeChangesParams) -> Result<Page<NodeChange>> {
        let limit = check_page_size(params.limit)?;
        let query = sqlx::query(NODE_CHANGES)
            .bind(params.after.map_or(0, Cursor::last_id))
            .bind(params.node.as_ref().map(|node| node.as_str()))
            .bind(i64::from(limit) + 1);
        let found =
            self.connections.fetch_all(query, || "listing node changes".to_string()).await?;
        let changes = found.iter().map(rows::node_change).collect::<Result<Vec<_>>>()?;
        Ok(Page::from_fetched(changes, limit, |change| change.id))
    }

    pub(super) async fn get_batch(&self, id: i64) -> Result<Option<BatchJob>> {
        let query = sqlx::query(BATCH_GET).bind(id);
        let found =
            self.connections.fetch_optional(query, || format!("reading batch {id}")).await?;
        found.as_ref().map(rows::batch).transpose()
    }

    pub(super) async fn list_batches(&self, params: BatchListParams) -> Result<Page<BatchJob>> {
        let limit = check_page_size(params.limit)?;
        let query = sqlx::query(BATCH_LIST)
            .bind(params.after.map_or(0, Cursor::last_id))
            .bind(params.name.as_ref().map(|name| name.as_str()))
            .bind(params.state.map(|state| state.as_str()))
            .bind(i64::from(limit) + 1);
        let found = self.connections.fetch_all(query, || "listing batches".to_string()).await?;
        let batches = found.iter().map(rows::batch).collect::<Result<Vec<_>>>()?;
        Ok(Page::from_fetched(batches, limit, |batch| batch.id))
    }

    pub(super) async fn list_partitions(
        &self,
        params: PartitionListParams,
    ) -> Result<Page<Partition>> {
        let limit = check_page_size(params.limit)?;
        let query = sqlx::query(PARTITION_LIST)
            .bind(params.batch)
            .bind(params.after.map_or(0, Cursor::last_id))
            .bind(params.state.map(|state| state.as_str()))
            .bind(i64::from(limit) + 1);
        let batch = params.batch;
        let found = self
            .connections
            .fetch_all(query, || format!("listing the partitions of batch {batch}"))
            .await?;
        let partitions = found.iter().map(rows::partition).collect::<Result<Vec<_>>>()?;
        Ok(Page::from_fetched(partitions, limit, |partition| partition.id))
    }

    pub(super) async fn list_moves(
        &self,
        params: PartitionMovesParams,
    ) -> Result<Page<PartitionMove>> {
        let limit = check_page_size(params.limit)?;
        let query = sqlx::query(PARTITION_MOVES)
            .bind(params.batch)
            .bind(params.after.map_or(0, Cursor::last_id))
            .bind(i64::from(limit) + 1);
        let batch = params.batch;
        let found = self
            .connections
            .fetch_all(query, || format!("listing the moves of batch {batch}"))
            .await?;
        let moves = found.iter().map(rows::partition_move).collect::<Result<Vec<_>>>()?;
        Ok(Page::from_fetched(moves, limit, |moved| moved.id))
    }

    pub(super) async fn clock(&self) -> Result<StoreTime> {
        let clock = self
            .connections
            .fetch_optional(sqlx::query(NOW), || "reading the PostgreSQL clock".to_string())
            .await?
            .ok_or_else(|| internal("the clock query answered no row".to_string()))?;
        row::now(&clock)
    }
}
