//! Reading the record back: nodes and their history, batches and their partitions, each
//! listing a keyset page (`key > cursor ORDER BY key LIMIT n + 1`, the extra row telling
//! whether another page follows).

use baton_core::cluster::{
    BatchJob, BatchListParams, Node, NodeChange, NodeChangesParams, NodeListParams, Partition,
    PartitionListParams,
};
use baton_core::page::check_page_size;
use baton_core::{Cursor, Page, Result};
use sqlx::MySqlPool;

use super::rows::{BatchRow, NodeChangeRow, NodeRow, PartitionRow, decode_all};
use crate::error::query_error;
use crate::queries::{
    BATCH_GET, BATCH_LIST, NODE_CHANGES_ALL, NODE_CHANGES_OF_NODE, NODE_LIST, PARTITION_LIST,
};

/// One page of nodes by seq, optionally in one state.
pub(super) async fn nodes(pool: &MySqlPool, params: NodeListParams) -> Result<Page<Node>> {
    let limit = check_page_size(params.limit)?;
    let state = params.state.map(|state| state.as_str());
    let rows: Vec<NodeRow> = sqlx::query_as(NODE_LIST)
        .bind(after(params.after))
        .bind(state)
        .bind(state)
        .bind(i64::from(limit) + 1)
        .fetch_all(pool)
        .await
        .map_err(|err| query_error("listing nodes", err))?;
    Ok(Page::from_fetched(decode_all(rows, NodeRow::into_node)?, limit, |node| node.seq))
}

/// One page of node state changes, oldest first, optionally of one node.
pub(super) async fn node_changes(
    pool: &MySqlPool,
    params: NodeChangesParams,
) -> Result<Page<NodeChange>> {
    let limit = check_page_size(params.limit)?;
    let query = match &params.node {
        Some(node) => sqlx::query_as(NODE_CHANGES_OF_NODE).bind(node.as_str()),
        None => sqlx::query_as(NODE_CHANGES_ALL),
    };
    let rows: Vec<NodeChangeRow> = query
        .bind(after(params.after))
        .bind(i64::from(limit) + 1)
        .fetch_all(pool)
        .await
        .map_err(|err| query_error("listing node changes", err))?;
    Ok(Page::from_fetched(decode_all(rows, NodeChangeRow::into_change)?, limit, |change| change.id))
}

/// Reads one batch.
pub(super) async fn batch(pool: &MySqlPool, id: i64) -> Result<Option<BatchJob>> {
    let row: Option<BatchRow> = sqlx::query_as(BATCH_GET)
        .bind(id)
        .fetch_optional(pool)
        .await
        .map_err(|err| query_error(format!("reading batch {id}"), err))?;
    row.map(BatchRow::into_batch).transpose()
}

/// One page of batches by id, optionally of one job and in one state.
pub(super) async fn batches(pool: &MySqlPool, params: BatchListParams) -> Result<Page<BatchJob>> {
    let limit = check_page_size(params.limit)?;
    let name = params.name.as_ref().map(|name| name.as_str());
    let state = params.state.map(|state| state.as_str());
    let rows: Vec<BatchRow> = sqlx::query_as(BATCH_LIST)
        .bind(after(params.after))
        .bind(name)
        .bind(name)
        .bind(state)
        .bind(state)
        .bind(i64::from(limit) + 1)
        .fetch_all(pool)
        .await
        .map_err(|err| query_error("listing batches", err))?;
    Ok(Page::from_fetched(decode_all(rows, BatchRow::into_batch)?, limit, |batch| batch.id))
}

/// One page of a batch's partitions by id, optionally in one state; an unknown batch has none.
pub(super) async fn partitions(
    pool: &MySqlPool,
    params: PartitionListParams,
) -> Result<Page<Partition>> {
    let limit = check_page_size(params.limit)?;
    let state = params.state.map(|state| state.as_str());
    let rows: Vec<PartitionRow> = sqlx::query_as(PARTITION_LIST)
        .bind(params.batch)
        .bind(after(params.after))
        .bind(state)
        .bind(state)
        .bind(i64::from(limit) + 1)
        .fetch_all(pool)
        .await
        .map_err(|err| {
            query_error(format!("listing the partitions of batch {}", params.batch), err)
        })?;
    Ok(Page::from_fetched(decode_all(rows, PartitionRow::into_partition)?, limit, |p| p.id))
}

/// Where a listing starts: after the cursor, or before every id.
fn after(cursor: Option<Cursor>) -> i64 {
    cursor.map_or(0, Cursor::last_id)
}
