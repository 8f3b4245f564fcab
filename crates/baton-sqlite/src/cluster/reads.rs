//! Reading the record back through the read pool: nodes and their history, batches and their
//! partitions, each listing a keyset page (`key > cursor ORDER BY key LIMIT n + 1`, the extra
//! row telling whether another page follows).

use baton_core::cluster::{
    BatchJob, BatchListParams, Node, NodeChange, NodeChangesParams, NodeListParams, Partition,
    PartitionListParams,
};
use baton_core::page::check_page_size;
use baton_core::{Cursor, Page, Result};
use sqlx::SqlitePool;

use super::rows::{BatchRow, NodeChangeRow, NodeRow, PartitionRow, decode_all};
use crate::error::from_sqlx;

/// One page of nodes by seq, optionally in one state.
pub(super) async fn nodes(read: &SqlitePool, params: NodeListParams) -> Result<Page<Node>> {
    let limit = check_page_size(params.limit)?;
    let rows: Vec<NodeRow> = sqlx::query_as(include_str!("../../queries/node_list.sql"))
        .bind(after(params.after))
        .bind(params.state.map(|state| state.as_str()))
        .bind(i64::from(limit) + 1)
        .fetch_all(read)
        .await
        .map_err(|err| from_sqlx("listing nodes", err))?;
    Ok(Page::from_fetched(decode_all(rows, NodeRow::into_node)?, limit, |node| node.seq))
}

/// One page of node state changes, oldest first, optionally of one node.
pub(super) async fn node_changes(
    read: &SqlitePool,
    params: NodeChangesParams,
) -> Result<Page<NodeChange>> {
    let limit = check_page_size(params.limit)?;
    let query = match params.node {
        Some(_) => include_str!("../../queries/node_changes_of_node.sql"),
        None => include_str!("../../queries/node_changes_list.sql"),
    };
    let mut query = sqlx::query_as(query).bind(after(params.after)).bind(i64::from(limit) + 1);
    if let Some(node) = &params.node {
        query = query.bind(node.as_str());
    }
    let rows: Vec<NodeChangeRow> =
        query.fetch_all(read).await.map_err(|err| from_sqlx("listing node changes", err))?;
    Ok(Page::from_fetched(decode_all(rows, NodeChangeRow::into_change)?, limit, |change| change.id))
}

/// Reads one batch.
pub(super) async fn batch(read: &SqlitePool, id: i64) -> Result<Option<BatchJob>> {
    let row: Option<BatchRow> = sqlx::query_as(include_str!("../../queries/batch_get.sql"))
        .bind(id)
        .fetch_optional(read)
        .await
        .map_err(|err| from_sqlx(&format!("reading batch {id}"), err))?;
    row.map(BatchRow::into_batch).transpose()
}

/// One page of batches by id, optionally of one job and in one state.
pub(super) async fn batches(read: &SqlitePool, params: BatchListParams) -> Result<Page<BatchJob>> {
    let limit = check_page_size(params.limit)?;
    let query = match params.name {
        Some(_) => include_str!("../../queries/batch_list_of_job.sql"),
        None => include_str!("../../queries/batch_list.sql"),
    };
    let mut query = sqlx::query_as(query)
        .bind(after(params.after))
        .bind(params.state.map(|state| state.as_str()))
        .bind(i64::from(limit) + 1);
    if let Some(name) = &params.name {
        query = query.bind(name.as_str());
    }
    let rows: Vec<BatchRow> =
        query.fetch_all(read).await.map_err(|err| from_sqlx("listing batches", err))?;
    Ok(Page::from_fetched(decode_all(rows, BatchRow::into_batch)?, limit, |batch| batch.id))
}

/// One page of a batch's partitions by id, optionally in one state; an unknown batch has
/// none.
pub(super) async fn partitions(
    read: &SqlitePool,
    params: PartitionListParams,
) -> Result<Page<Partition>> {
    let limit = check_page_size(params.limit)?;
    let query = match params.state {
        Some(_) => include_str!("../../queries/partition_list_in_state.sql"),
        None => include_str!("../../queries/partition_list.sql"),
    };
    let mut query = sqlx::query_as(query)
        .bind(params.batch)
        .bind(after(params.after))
        .bind(i64::from(limit) + 1);
    if let Some(state) = params.state {
        query = query.bind(state.as_str());
    }
    let doing = format!("listing the partitions of batch {}", params.batch);
    let rows: Vec<PartitionRow> =
        query.fetch_all(read).await.map_err(|err| from_sqlx(&doing, err))?;
    Ok(Page::from_fetched(decode_all(rows, PartitionRow::into_partition)?, limit, |partition| {
        partition.id
    }))
}

/// Where a listing starts: after the cursor, or before every id.
fn after(cursor: Option<Cursor>) -> i64 {
    cursor.map_or(i64::MIN, Cursor::last_id)
}
