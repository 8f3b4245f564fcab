//! Reading executions back (one, a filtered page, the earliest due instant) and pruning them by
//! retention.

use baton_core::job::{ExecutionListParams, PruneParams};
use baton_core::page::check_page_size;
use baton_core::{Cursor, Execution, Page, Result, StoreTime};
use sqlx::SqlitePool;

use super::Inner;
use super::rows::{self, ExecutionRow};
use crate::error::from_sqlx;
use crate::tx;
use baton_core::job::row::millis;

/// Reads one execution.
pub(super) async fn get(read: &SqlitePool, id: i64) -> Result<Option<Execution>> {
    let row: Option<ExecutionRow> = sqlx::query_as(include_str!("../../queries/execution_get.sql"))
        .bind(id)
        .fetch_optional(read)
        .await
        .map_err(|err| from_sqlx(&format!("reading execution {id}"), err))?;
    row.map(ExecutionRow::into_execution).transpose()
}

/// Reads the output recorded with an execution.
pub(super) async fn output(read: &SqlitePool, id: i64) -> Result<Option<String>> {
    sqlx::query_scalar(include_str!("../../queries/execution_output_get.sql"))
        .bind(id)
        .fetch_optional(read)
        .await
        .map_err(|err| from_sqlx(&format!("reading the output of execution {id}"), err))
}

/// One page of executions by id, filtered: `id > cursor ... ORDER BY id LIMIT n + 1`.
pub(super) async fn list(
    read: &SqlitePool,
    params: ExecutionListParams,
) -> Result<Page<Execution>> {
    let limit = check_page_size(params.limit)?;
    let query = match params.job {
        Some(_) => include_str!("../../queries/execution_list_of_job.sql"),
        None => include_str!("../../queries/execution_list.sql"),
    };
    let mut query = sqlx::query_as(query)
        .bind(params.after.map_or(0, Cursor::last_id))
        .bind(params.status.map(|status| status.as_str()))
        .bind(params.since.map(StoreTime::as_millis))
        .bind(params.until.map(StoreTime::as_millis))
        .bind(i64::from(limit) + 1);
    if let Some(job) = &params.job {
        query = query.bind(job.as_str());
    }
    let found: Vec<ExecutionRow> =
        query.fetch_all(read).await.map_err(|err| from_sqlx("listing executions", err))?;
    Ok(Page::from_fetched(rows::executions(found)?, limit, |execution| execution.id))
}

/// Deletes up to `batch` finished executions of one job that the retention no longer keeps,
/// oldest first, in one statement, and raises the job's pruned watermark over them. A job without such executions (or not registered) has
/// nothing to delete.
pub(super) async fn prune(inner: &Inner, params: PruneParams) -> Result<u64> {
    if params.batch == 0 {
        return Ok(0);
    }
    let doing = format!("pruning the executions of job {}", params.job);
    let mut tx = tx::begin(&inner.write, &doing).await?;
    let now = inner.now();
    let retention = params.retention;
    let cutoff = now.as_millis().saturating_sub(millis(retention.max_age));
    let deleted: Vec<Option<i64>> =
        sqlx::query_scalar(include_str!("../../queries/execution_prune.sql"))
            .bind(params.job.as_str())
            .bind(i64::from(retention.keep_succeeded))
            .bind(i64::from(retention.keep_failed))
            .bind(cutoff)
            .bind(i64::from(params.batch))
            .fetch_all(&mut *tx)
            .await
            .map_err(|err| from_sqlx(&doing, err))?;
    if deleted.is_empty() {
        tx::finish_unchanged(tx).await;
        return Ok(0);
    }
    if let Some(through) = deleted.iter().flatten().max() {
        sqlx::query(include_str!("../../queries/job_pruned_raise.sql"))
            .bind(params.job.as_str())
            .bind(through)
            .execute(&mut *tx)
            .await
            .map_err(|err| from_sqlx(&doing, err))?;
    }
    tx::commit(tx, &doing).await?;
    Ok(deleted.len() as u64)
}
