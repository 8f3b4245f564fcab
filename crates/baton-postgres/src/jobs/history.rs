//! Reading and pruning the record: one execution, keyset pages of executions, retention, and
//! the next due instant.

use baton_core::job::{ExecutionListParams, PruneParams};
use baton_core::page::check_page_size;
use baton_core::{Cursor, Execution, Page, Result, StoreTime};

use super::{PostgresJobStore, internal, millis};
use crate::queries::{EXECUTION_GET, EXECUTION_LIST, EXECUTION_OUTPUT_GET, EXECUTION_PRUNE, NOW};
use crate::row;

impl PostgresJobStore {
    pub(super) async fn get_execution(&self, id: i64) -> Result<Option<Execution>> {
        let found = self
            .connections
            .fetch_optional(sqlx::query(EXECUTION_GET).bind(id), || {
                format!("reading execution {id}")
            })
            .await?;
        found.as_ref().map(row::execution).transpose()
    }

    pub(super) async fn execution_output_of(&self, id: i64) -> Result<Option<String>> {
        let found = self
            .connections
            .fetch_optional(sqlx::query(EXECUTION_OUTPUT_GET).bind(id), || {
                format!("reading the output of execution {id}")
            })
            .await?;
        found.as_ref().map(|found| row::text(found, "output")).transpose()
    }

    pub(super) async fn list_executions(
        &self,
        params: ExecutionListParams,
    ) -> Result<Page<Execution>> {
        let limit = check_page_size(params.limit)?;
        let after = params.after.map_or(0, Cursor::last_id);
        let query = sqlx::query(EXECUTION_LIST)
            .bind(after)
            .bind(params.job.as_ref().map(|job| job.as_str()))
            .bind(params.status.map(|status| status.as_str()))
            .bind(params.since.map(StoreTime::as_millis))
            .bind(params.until.map(StoreTime::as_millis))
            .bind(i64::from(limit) + 1);
        let rows = self.connections.fetch_all(query, || "listing executions".to_string()).await?;
        let executions = rows.iter().map(row::execution).collect::<Result<Vec<_>>>()?;
        Ok(Page::from_fetched(executions, limit, |execution| execution.id))
    }

    pub(super) async fn prune_job(&self, params: PruneParams) -> Result<u64> {
        if params.batch == 0 {
            return Ok(0);
        }
        let retention = &params.retention;
        let query = sqlx::query(EXECUTION_PRUNE)
            .bind(params.job.as_str())
            .bind(i64::from(retention.keep_succeeded))
            .bind(i64::from(retention.keep_failed))
            .bind(millis(retention.max_age))
            .bind(i64::from(params.batch));
        let answer = self
            .connections
            .fetch_optional(query, || format!("pruning the executions of job {}", params.job))
            .await?
            .ok_or_else(|| internal("pruning answered no row".to_string()))?;
        row::total(&answer, "deleted")
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
