//! Creating batches with their partitions, and finishing them by their verdict.

use baton_core::Result;
use baton_core::cluster::{
    BatchCreateParams, BatchJob, BatchState, LISTED_FAILURES, batch_not_found, verdict,
};

use super::{PostgresClusterStore, internal, rows};
use crate::queries::{BATCH_CREATE, BATCH_FINISH, BATCH_TALLY};

impl PostgresClusterStore {
    /// Checks the partitions, then stores the batch and all of them in one statement.
    pub(super) async fn create_batch(&self, params: BatchCreateParams) -> Result<BatchJob> {
        params.check()?;
        let partitions = &params.partitions;
        let keys: Vec<&str> = partitions.iter().map(|p| p.spec.key.as_str()).collect();
        let parameters: Vec<&str> = partitions.iter().map(|p| p.spec.params.as_str()).collect();
        let transferable: Vec<bool> = partitions.iter().map(|p| p.spec.transferable).collect();
        let nodes: Vec<Option<&str>> =
            partitions.iter().map(|p| p.node.as_ref().map(|node| node.as_str())).collect();
        let query = sqlx::query(BATCH_CREATE)
            .bind(params.name.as_str())
            .bind(params.strategy.to_string())
            .bind(&keys)
            .bind(&parameters)
            .bind(&transferable)
            .bind(&nodes)
            .bind(params.stealing);
        let what =
            || format!("creating a batch of job {} with {} partitions", params.name, keys.len());
        let created = self.connections.fetch_optional(query, what).await?.ok_or_else(|| {
            internal(format!("creating a batch of job {} answered no row", params.name))
        })?;
        rows::batch(&created)
    }

    /// Reads the batch with its tally and, when every partition is final, records the verdict
    /// [`verdict`] gives: two statements, the second only for a batch that can finish.
    pub(super) async fn finish_batch(&self, id: i64) -> Result<BatchJob> {
        let query = sqlx::query(BATCH_TALLY).bind(id).bind(LISTED_FAILURES as i64);
        let found = self
            .connections
            .fetch_optional(query, || format!("reading the tally of batch {id}"))
            .await?
            .ok_or_else(|| batch_not_found(id))?;
        let batch = rows::batch(&found)?;
        if batch.state != BatchState::Running {
            return Ok(batch);
        }
        let Some(verdict) = verdict(&rows::tally(&found)?) else {
            return Ok(batch);
        };
        let query = sqlx::query(BATCH_FINISH)
            .bind(id)
            .bind(verdict.state.as_str())
            .bind(verdict.failure.as_deref());
        let finished = self
            .connections
            .fetch_optional(query, || format!("finishing batch {id}"))
            .await?
            .ok_or_else(|| internal(format!("finishing batch {id} answered no row")))?;
        rows::batch(&finished)
    }
}
