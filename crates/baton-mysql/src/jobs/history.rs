//! Reading executions back (one, its output, a filtered page) and pruning them by retention.

use baton_core::job::{ExecutionListParams, PruneParams};
use baton_core::page::check_page_size;
use baton_core::{Cursor, Execution, Page, Result, StoreTime, Trigger};
use sqlx::MySqlPool;

use super::rows::{self, ExecutionRow};
use super::{Inner, server_now};
use crate::error::query_error;
use crate::queries::{
    EXECUTION_DELETE, EXECUTION_GET, EXECUTION_LIST, EXECUTION_LIST_OF_JOB, EXECUTION_OUTPUT_GET,
    EXECUTION_PRUNABLE, JOB_PRUNED_RAISE, with_list,
};
use crate::row::millis;
use crate::tx;

/// Reads one execution.
pub(super) async fn get(pool: &MySqlPool, id: i64) -> Result<Option<Execution>> {
    let row: Option<ExecutionRow> = sqlx::query_as(EXECUTION_GET)
        .bind(id)
        .fetch_optional(pool)
        .await
        .map_err(|err| query_error(format!("reading execution {id}"), err))?;
    row.map(ExecutionRow::into_execution).transpose()
}

/// Reads the output recorded with an execution.
pub(super) async fn output(pool: &MySqlPool, id: i64) -> Result<Option<String>> {
    sqlx::query_scalar(EXECUTION_OUTPUT_GET)
        .bind(id)
        .fetch_optional(pool)
        .await
        .map_err(|err| query_error(format!("reading the output of execution {id}"), err))
}

/// One page of executions by id, filtered, the extra row telling whether another follows.
pub(super) async fn list(pool: &MySqlPool, params: ExecutionListParams) -> Result<Page<Execution>> {
    let limit = check_page_size(params.limit)?;
    let mut query = match &params.job {
        Some(job) => sqlx::query_as(EXECUTION_LIST_OF_JOB).bind(job.as_str()),
        None => sqlx::query_as(EXECUTION_LIST),
    };
    let status = params.status.map(|status| status.as_str());
    let since = params.since.map(StoreTime::as_millis);
    let until = params.until.map(StoreTime::as_millis);
    query = query
        .bind(params.after.map_or(0, Cursor::last_id))
        .bind(status)
        .bind(status)
        .bind(since)
        .bind(since)
        .bind(until)
        .bind(until)
        .bind(i64::from(limit) + 1);
    let found: Vec<ExecutionRow> =
        query.fetch_all(pool).await.map_err(|err| query_error("listing executions", err))?;
    Ok(Page::from_fetched(rows::executions(found)?, limit, |execution| execution.id))
}

/// Deletes up to `batch` finished executions of one job that the retention no longer keeps,
/// oldest first, and raises the job's pruned watermark over them, in one transaction: one
/// statement finds them, one deletes them (MySQL cannot delete from a table its own subquery
/// reads), one raises the watermark.
pub(super) async fn prune(inner: &Inner, params: PruneParams) -> Result<u64> {
    if params.batch == 0 {
        return Ok(0);
    }
    let doing = format!("pruning the executions of job {}", params.job);
    let retention = params.retention;
    tx::transaction!(&inner.pool, &doing, |conn| async {
        let now = server_now(conn).await?;
        let cutoff = now.as_millis().saturating_sub(millis(retention.max_age));
        let prunable: Vec<(i64, String, i64)> = sqlx::query_as(EXECUTION_PRUNABLE)
            .bind(params.job.as_str())
            .bind(i64::from(retention.keep_succeeded))
            .bind(i64::from(retention.keep_failed))
            .bind(cutoff)
            .bind(params.job.as_str())
            .bind(params.job.as_str())
            .bind(i64::from(params.batch))
            .fetch_all(&mut *conn)
            .await?;
        if prunable.is_empty() {
            return Ok(0);
        }
        let mut delete =
            sqlx::query(sqlx::AssertSqlSafe(with_list(EXECUTION_DELETE, prunable.len())));
        for (id, _, _) in &prunable {
            delete = delete.bind(*id);
        }
        let deleted = delete.execute(&mut *conn).await?.rows_affected();
        let manual = Trigger::Manual.as_str();
        let through =
            prunable.iter().filter(|(_, trigger, _)| trigger != manual).map(|p| p.2).max();
        if let Some(through) = through {
            sqlx::query(JOB_PRUNED_RAISE)
                .bind(params.job.as_str())
                .bind(through)
                .execute(&mut *conn)
                .await?;
        }
        Ok(deleted)
    })
}
