//! Running executions: heartbeats, completion, cancellation, rescue of executions whose worker
//! stopped heartbeating, and the retries that follow failed attempts.

use std::collections::HashMap;

use baton_core::job::rules;
use baton_core::job::{
    CompleteParams, Completed, HeartbeatOutcome, HeartbeatParams, RescueParams, Rescued,
};
use baton_core::{Error, ErrorKind, Execution, ExecutionStatus, Job, Result, StoreTime};
use sqlx::SqliteConnection;

use super::rows::{self, ExecutionRow};
use super::{Inner, definitions};
use crate::error::from_sqlx;
use crate::json::Rows;
use crate::tx;
use baton_core::job::row::millis;

/// Records a worker's heartbeat for all its executions in one statement; the executions it
/// did not touch are lost.
pub(super) async fn heartbeat(inner: &Inner, params: HeartbeatParams) -> Result<HeartbeatOutcome> {
    let mut outcome = HeartbeatOutcome::default();
    if params.executions.is_empty() {
        return Ok(outcome);
    }
    let mut pairs = Rows::default();
    for (id, token) in &params.executions {
        pairs.push(&[(*id).into(), token.to_store().into()]);
    }
    let doing = format!("recording the heartbeat of {}", params.node);
    let mut tx = tx::begin(&inner.write, &doing).await?;
    let now = inner.now();
    let beaten: Vec<(i64, i64)> =
        sqlx::query_as(include_str!("../../queries/execution_heartbeat.sql"))
            .bind(now.as_millis())
            .bind(params.node.as_str())
            .bind(pairs.finish())
            .fetch_all(&mut *tx)
            .await
            .map_err(|err| from_sqlx(&doing, err))?;
    if beaten.is_empty() {
        tx::finish_unchanged(tx).await;
    } else {
        tx::commit(tx, &doing).await?;
    }
    let alive: HashMap<i64, bool> =
        beaten.into_iter().map(|(id, cancel)| (id, cancel != 0)).collect();
    for (id, _) in &params.executions {
        match alive.get(id) {
            None => outcome.lost.push(*id),
            Some(true) => outcome.cancel.push(*id),
            Some(false) => {}
        }
    }
    Ok(outcome)
}

/// Finishes a running execution (compare-and-set on its token) and records the retry its
/// policy calls for, in one write transaction.
pub(super) async fn complete(inner: &Inner, params: CompleteParams) -> Result<Completed> {
    complete_batch(inner, vec![params]).await.pop().unwrap_or_else(|| {
        Err(Error::new(ErrorKind::Internal, "a completion answered nothing".to_string()))
    })
}

/// Finishes several running executions in one write transaction (one commit, one sync), each
/// judged on its own: a stale token or a status that is not final answers its own error. A
/// failure of the transaction itself is every completion's error.
pub(super) async fn complete_batch(
    inner: &Inner,
    batch: Vec<CompleteParams>,
) -> Vec<Result<Completed>> {
    let size = batch.len();
    match complete_in_one(inner, batch).await {
        Ok(results) => results,
        Err(err) => (0..size).map(|_| Err(Error::new(err.kind(), err.to_string()))).collect(),
    }
}

async fn complete_in_one(
    inner: &Inner,
    batch: Vec<CompleteParams>,
) -> Result<Vec<Result<Completed>>> {
    let doing = format!("completing {} executions", batch.len());
    let mut tx = tx::begin(&inner.write, &doing).await?;
    let now = inner.now();
    let mut finished: Vec<Result<Execution>> = Vec::with_capacity(batch.len());
    for params in &batch {
        if let Err(err) = check_final(params) {
            finished.push(Err(err));
            continue;
        }
        let row: Option<ExecutionRow> =
            sqlx::query_as(include_str!("../../queries/execution_complete.sql"))
                .bind(params.id)
                .bind(params.token.to_store())
                .bind(params.status.as_str())
                .bind(params.detail.as_deref())
                .bind(now.as_millis())
                .fetch_optional(&mut *tx)
                .await
                .map_err(|err| from_sqlx(&doing, err))?;
        if let (Some(_), Some(output)) = (&row, &params.output) {
            sqlx::query(include_str!("../../queries/execution_output_insert.sql"))
                .bind(params.id)
                .bind(output)
                .execute(&mut *tx)
                .await
                .map_err(|err| from_sqlx(&doing, err))?;
        }
        finished.push(match row {
            Some(row) => row.into_execution(),
            None => Err(Error::lease_lost(format!(
                "execution {} is no longer running under token {}",
                params.id, params.token
            ))),
        });
    }
    let done: Vec<Execution> = finished.iter().filter_map(|r| r.as_ref().ok().cloned()).collect();
    let (retries, freed) = if done.is_empty() {
        tx::finish_unchanged(tx).await;
        (Vec::new(), false)
    } else {
        let retries = record_retries(&mut tx, &done, now, &doing).await?;
        let freed = waits_on_overlap(&mut tx, &done, now, &doing).await?;
        tx::commit(tx, &doing).await?;
        (retries, freed)
    };
    if freed || !retries.is_empty() {
        inner.wake_workers();
    }
    let retry_of = |execution: &Execution| {
        retries.iter().find(|r| r.job == execution.job && r.fire_key == execution.fire_key).cloned()
    };
    Ok(finished
        .into_iter()
        .map(|result| result.map(|execution| Completed { retry: retry_of(&execution), execution }))
        .collect())
}

/// Checks that a completion's status is final.
fn check_final(params: &CompleteParams) -> Result<()> {
    match params.status {
        ExecutionStatus::Succeeded
        | ExecutionStatus::Failed
        | ExecutionStatus::TimedOut
        | ExecutionStatus::Cancelled => Ok(()),
        status => Err(Error::invalid_input(format!(
            "invalid status {status} to complete execution {} with: expected succeeded, failed, \
             timed_out or cancelled",
            params.id
        ))),
    }
}

/// Asks an execution to stop, in one statement: a running one is flagged for its worker, a
/// scheduled one is cancelled at once.
pub(super) async fn request_cancel(inner: &Inner, id: i64) -> Result<bool> {
    let doing = format!("cancelling execution {id}");
    let mut tx = tx::begin(&inner.write, &doing).await?;
    let now = inner.now();
    let done = sqlx::query(include_str!("../../queries/execution_request_cancel.sql"))
        .bind(id)
        .bind(now.as_millis())
        .execute(&mut *tx)
        .await
        .map_err(|err| from_sqlx(&doing, err))?;
    if done.rows_affected() == 0 {
        tx::finish_unchanged(tx).await;
        return Ok(false);
    }
    tx::commit(tx, &doing).await?;
    Ok(true)
}

/// Abandons the running executions with the oldest heartbeats past `stale_after`, and records
/// their retries: one transaction of up to four statements.
pub(super) async fn rescue(inner: &Inner, params: RescueParams) -> Result<Rescued> {
    let doing = "rescuing executions whose worker stopped heartbeating";
    let stale_after = millis(params.stale_after);
    // Nothing stale (checked first on the read pool) costs no write lock.
    let oldest = oldest_heartbeat(&inner.read, doing).await?;
    let checked_at = inner.now().as_millis();
    if oldest.is_none_or(|at| at.as_millis() >= checked_at.saturating_sub(stale_after)) {
        return Ok(Rescued { oldest_heartbeat: oldest, ..Rescued::default() });
    }
    let mut tx = tx::begin(&inner.write, doing).await?;
    let now = inner.now();
    let cutoff = now.as_millis().saturating_sub(stale_after);
    let stale: Vec<ExecutionRow> =
        sqlx::query_as(include_str!("../../queries/execution_stale.sql"))
            .bind(cutoff)
            .bind(i64::from(params.limit))
            .fetch_all(&mut *tx)
            .await
            .map_err(|err| from_sqlx(doing, err))?;
    let stale = rows::executions(stale)?;
    if stale.is_empty() {
        let oldest_heartbeat = oldest_heartbeat(&mut *tx, doing).await?;
        tx::finish_unchanged(tx).await;
        return Ok(Rescued { oldest_heartbeat, ..Rescued::default() });
    }
    let mut gone = Rows::default();
    for execution in &stale {
        gone.push(&[execution.id.into(), abandoned_detail(execution).as_str().into()]);
    }
    let abandoned: Vec<ExecutionRow> =
        sqlx::query_as(include_str!("../../queries/execution_abandon.sql"))
            .bind(now.as_millis())
            .bind(gone.finish())
            .fetch_all(&mut *tx)
            .await
            .map_err(|err| from_sqlx(doing, err))?;
    let mut abandoned = rows::executions(abandoned)?;
    let order: HashMap<i64, usize> = stale.iter().enumerate().map(|(i, e)| (e.id, i)).collect();
    abandoned.sort_by_key(|execution| order.get(&execution.id).copied().unwrap_or(usize::MAX));
    let retries = record_retries(&mut tx, &abandoned, now, doing).await?;
    let freed = waits_on_overlap(&mut tx, &abandoned, now, doing).await?;
    let oldest_heartbeat = oldest_heartbeat(&mut *tx, doing).await?;
    tx::commit(tx, doing).await?;
    if freed || !retries.is_empty() {
        inner.wake_workers();
    }
    Ok(Rescued { abandoned, retries, oldest_heartbeat })
}

/// Whether a job of the `finished` executions, whose overlap is not `allow`, has an execution
/// due at `now` still scheduled: it may have waited on one of them, so the workers are woken.
async fn waits_on_overlap(
    conn: &mut SqliteConnection,
    finished: &[Execution],
    now: StoreTime,
    doing: &str,
) -> Result<bool> {
    let jobs = crate::json::strings(finished.iter().map(|execution| execution.job.as_str()));
    sqlx::query_scalar(include_str!("../../queries/execution_waiting_on_overlap.sql"))
        .bind(now.as_millis())
        .bind(jobs)
        .fetch_one(conn)
        .await
        .map_err(|err| from_sqlx(doing, err))
}

/// The oldest heartbeat of the executions running now.
async fn oldest_heartbeat<'c>(
    executor: impl sqlx::SqliteExecutor<'c>,
    doing: &str,
) -> Result<Option<StoreTime>> {
    let oldest: Option<i64> =
        sqlx::query_scalar(include_str!("../../queries/execution_oldest_heartbeat.sql"))
            .fetch_one(executor)
            .await
            .map_err(|err| from_sqlx(doing, err))?;
    Ok(oldest.map(StoreTime::from_millis))
}

fn abandoned_detail(execution: &Execution) -> String {
    let node = execution.node.as_ref().map_or("unknown", |node| node.as_str());
    let last = execution.heartbeat_at.or(execution.started_at);
    match last {
        Some(last) => format!("worker {node} stopped heartbeating (last at {last})"),
        None => format!("worker {node} stopped heartbeating"),
    }
}

/// Records the next attempt of every finished execution whose job's retry policy calls for one
/// (per [`rules::retry_due`]): one statement reads the jobs, one inserts every retry. Returns
/// the retries in the order of `finished`.
async fn record_retries(
    conn: &mut SqliteConnection,
    finished: &[Execution],
    now: StoreTime,
    doing: &str,
) -> Result<Vec<Execution>> {
    let candidates: Vec<&Execution> =
        finished.iter().filter(|execution| execution.status.is_retryable()).collect();
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let jobs: HashMap<_, Job> =
        definitions::named(conn, candidates.iter().map(|execution| &execution.job)).await?;
    let mut retries = Rows::default();
    for execution in candidates {
        let Some(job) = jobs.get(&execution.job) else { continue };
        let retry = &job.definition.policy.retry;
        let Some(due_at) = rules::retry_due(retry, execution.status, execution.attempt, now) else {
            continue;
        };
        retries.push(&[
            execution.job.as_str().into(),
            execution.fire_key.as_str().into(),
            execution.scheduled_at.as_millis().into(),
            (i64::from(execution.attempt) + 1).into(),
            due_at.as_millis().into(),
        ]);
    }
    if retries.len() == 0 {
        return Ok(Vec::new());
    }
    let rows: Vec<ExecutionRow> =
        sqlx::query_as(include_str!("../../queries/execution_retries_insert.sql"))
            .bind(retries.finish())
            .bind(now.as_millis())
            .fetch_all(&mut *conn)
            .await
            .map_err(|err| from_sqlx(doing, err))?;
    let mut inserted = rows::executions(rows)?;
    inserted.sort_by_key(|execution| execution.id);
    Ok(inserted)
}
