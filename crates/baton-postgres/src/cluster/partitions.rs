//! Partition work: claims, compare-and-set writes under a claim's token, the reassignment of
//! the partitions of departed nodes, and the leader's moves of pending partitions.

use baton_core::cluster::{
    Partition, PartitionCheckpointParams, PartitionClaimParams, PartitionCompleteParams,
    PartitionFailParams, PartitionMoveParams, PartitionReassignParams, PartitionState, Reassigned,
    node_lost, partition_lost,
};
use baton_core::{FencingToken, Result};

use super::{PostgresClusterStore, check_limit, internal, rows, stored_count};
use crate::connections::PgQuery;
use crate::queries::{
    PARTITION_CHECKPOINT, PARTITION_CLAIM, PARTITION_COMPLETE, PARTITION_FAIL, PARTITION_MOVE,
    PARTITION_REASSIGN,
};
use crate::row;

impl PostgresClusterStore {
    /// Claims pending partitions for an active node in one statement.
    pub(super) async fn claim(&self, params: PartitionClaimParams) -> Result<Vec<Partition>> {
        check_limit("claim limit", params.limit)?;
        let jobs: Vec<&str> = params.jobs.iter().map(|job| job.as_str()).collect();
        let query = sqlx::query(PARTITION_CLAIM)
            .bind(params.node.as_str())
            .bind(params.token.to_store())
            .bind(i64::from(params.limit))
            .bind(&jobs);
        let found = self
            .connections
            .fetch_all(query, || format!("claiming partitions for node {}", params.node))
            .await?;
        let first = found.first().ok_or_else(|| internal("a claim answered no row".to_string()))?;
        if !row::flag(first, "active")? {
            return Err(node_lost(&params.node, params.token));
        }
        let mut claimed = Vec::with_capacity(found.len());
        for one in &found {
            if row::joined_id(one, "id")?.is_some() {
                claimed.push(rows::partition(one)?);
            }
        }
        Ok(claimed)
    }

    /// Replaces a claimed partition's checkpoint in one compare-and-set statement.
    pub(super) async fn checkpoint(&self, params: PartitionCheckpointParams) -> Result<Partition> {
        let query = sqlx::query(PARTITION_CHECKPOINT)
            .bind(params.id)
            .bind(params.token.to_store())
            .bind(params.checkpoint.as_str())
            .bind(stored_count(params.progress));
        self.write_claimed(query, params.id, params.token, "checkpointing").await
    }

    /// Completes a claimed partition in one compare-and-set statement.
    pub(super) async fn complete(&self, params: PartitionCompleteParams) -> Result<Partition> {
        let query = sqlx::query(PARTITION_COMPLETE)
            .bind(params.id)
            .bind(params.token.to_store())
            .bind(params.result.as_ref().map(|result| result.as_str()));
        self.write_claimed(query, params.id, params.token, "completing").await
    }

    /// Fails a claimed partition in one compare-and-set statement, keeping the error as cut
    /// by [`PartitionFailParams::stored_error`].
    pub(super) async fn fail(&self, params: PartitionFailParams) -> Result<Partition> {
        let query = sqlx::query(PARTITION_FAIL)
            .bind(params.id)
            .bind(params.token.to_store())
            .bind(params.stored_error());
        self.write_claimed(query, params.id, params.token, "failing").await
    }

    /// Rehomes the partitions of departed nodes in one statement.
    pub(super) async fn reassign(&self, params: PartitionReassignParams) -> Result<Reassigned> {
        check_limit("reassignment limit", params.limit)?;
        let query = sqlx::query(PARTITION_REASSIGN).bind(i64::from(params.limit));
        let found = self
            .connections
            .fetch_all(query, || "reassigning the partitions of departed nodes".to_string())
            .await?;
        let mut rehomed: Vec<Partition> =
            found.iter().map(rows::partition).collect::<Result<_>>()?;
        rehomed.sort_by_key(|partition| partition.id);
        let (failed, moved) =
            rehomed.into_iter().partition(|partition| partition.state == PartitionState::Failed);
        Ok(Reassigned { moved, failed })
    }

    /// Moves pending partitions of a running batch to an active node, each under a new token,
    /// and records the moves, in one statement.
    pub(super) async fn move_pending(&self, params: PartitionMoveParams) -> Result<Vec<Partition>> {
        params.check()?;
        let query = sqlx::query(PARTITION_MOVE)
            .bind(params.batch)
            .bind(params.from.as_str())
            .bind(params.to.as_str())
            .bind(i64::from(params.keep))
            .bind(i64::from(params.count))
            .bind(params.reason.as_str());
        let what = || format!("moving partitions of batch {} to node {}", params.batch, params.to);
        let found = self.connections.fetch_all(query, what).await?;
        let mut moved: Vec<Partition> = found.iter().map(rows::partition).collect::<Result<_>>()?;
        moved.sort_by_key(|partition| partition.id);
        Ok(moved)
    }

    /// Runs a compare-and-set write of one claimed partition; `LeaseLost` when the partition
    /// is no longer claimed under `token`.
    async fn write_claimed(
        &self,
        query: PgQuery<'_>,
        id: i64,
        token: FencingToken,
        action: &str,
    ) -> Result<Partition> {
        let written = self
            .connections
            .fetch_optional(query, || format!("{action} partition {id}"))
            .await?
            .ok_or_else(|| partition_lost(id, token))?;
        rows::partition(&written)
    }
}
