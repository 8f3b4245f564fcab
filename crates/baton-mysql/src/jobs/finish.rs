//! Running executions: heartbeats, completion, cancellation, rescue of executions whose worker
//! stopped heartbeating, and the retries that follow failed attempts.

use std::collections::HashMap;

use baton_core::job::rules;
use baton_core::job::{
    CompleteParams, Completed, HeartbeatOutcome, HeartbeatParams, RescueParams, Rescued,
};
use baton_core::{Error, ErrorKind, Execution, ExecutionStatus, Result, StoreTime};
use serde_json::json;
use sqlx::MySqlConnection;

use super::definitions::{self, Lock};
use super::rows::{self, ExecutionRow};
use super::{Inner, read_executions, server_now};
use crate::cluster::lists;
use crate::error::query_error;
use crate::queries::{
    EXECUTION_ABANDON, EXECUTION_BEATEN, EXECUTION_COMPLETE, EXECUTION_HEARTBEAT,
    EXECUTION_LOCK_RUNNING, EXECUTION_OLDEST_HEARTBEAT, EXECUTION_OUTPUT_INSERT,
    EXECUTION_REQUEST_CANCEL, EXECUTION_RETRY_INSERT, EXECUTION_STALE,
    EXECUTION_WAITING_ON_OVERLAP, with_list,
};
use crate::row::millis;
use crate::tx::{self, Failure};
use crate::wakeups::{self, DUE};

/// Records a worker's heartbeat for all its executions: one update and a read back of the rows
/// it touched, one commit. The executions it did not touch are lost.
pub(super) async fn heartbeat(inner: &Inner, params: HeartbeatParams) -> Result<HeartbeatOutcome> {
    let mut outcome = HeartbeatOutcome::default();
    if params.executions.is_empty() {
        return Ok(outcome);
    }
    let pairs: Vec<_> =
        params.executions.iter().map(|(id, token)| json!([id, token.to_store()])).collect();
    let pairs = serde_json::Value::from(pairs).to_string();
    let doing = format!("recording the heartbeat of {}", params.node);
    let beaten: Vec<(i64, bool)> = tx::transaction!(&inner.pool, &doing, |conn| async {
        let now = server_now(conn).await?;
        sqlx::query(EXECUTION_HEARTBEAT)
            .bind(&pairs)
            .bind(now.as_millis())
            .bind(params.node.as_str())
            .execute(&mut *conn)
            .await?;
        let beaten = sqlx::query_as(EXECUTION_BEATEN)
            .bind(&pairs)
            .bind(params.node.as_str())
            .fetch_all(&mut *conn)
            .await?;
        Ok(beaten)
    })?;
    let alive: HashMap<i64, bool> = beaten.into_iter().collect();
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
/// policy calls for, in one transaction.
pub(super) async fn complete(inner: &Inner, params: CompleteParams) -> Result<Completed> {
    complete_batch(inner, vec![params]).await.pop().unwrap_or_else(|| {
        Err(Error::new(ErrorKind::Internal, "a completion answered nothing".to_string()))
    })
}

/// Finishes several running executions in one transaction (one commit), each judged on its
/// own: a stale token or a status that is not final answers its own error. A failure of the
/// transaction itself is every completion's error.
pub(super) async fn complete_batch(
    inner: &Inner,
    batch: Vec<CompleteParams>,
) -> Vec<Result<Completed>> {
    let doing = format!("completing {} executions", batch.len());
    let outcome = tx::transaction!(&inner.pool, &doing, |conn| complete_in(conn, &batch));
    let (finished, retries, freed) = match outcome {
        Ok(outcome) => outcome,
        Err(err) => {
            return batch.iter().map(|_| Err(Error::new(err.kind(), err.to_string()))).collect();
        }
    };
    if freed || !retries.is_empty() {
        inner.bell.ring().await;
    }
    let retry_of = |execution: &Execution| {
        retries.iter().find(|r| r.job == execution.job && r.fire_key == execution.fire_key).cloned()
    };
    finished
        .into_iter()
        .map(|result| result.map(|execution| Completed { retry: retry_of(&execution), execution }))
        .collect()
}

/// The completions, the retries they called for, and whether a due execution may have waited
/// on one of them.
type CompleteOutcome = (Vec<Result<Execution>>, Vec<Execution>, bool);

async fn complete_in(
    conn: &mut MySqlConnection,
    batch: &[CompleteParams],
) -> std::result::Result<CompleteOutcome, Failure> {
    let now = server_now(conn).await?;
    let ids: Vec<i64> = batch.iter().map(|params| params.id).collect();
    let ids = lists::padded(&ids);
    let statement = lists::ids(EXECUTION_LOCK_RUNNING, ids.len());
    let mut lock = sqlx::query_as(sqlx::AssertSqlSafe(statement));
    for id in &ids {
        lock = lock.bind(*id);
    }
    let mut running: HashMap<i64, i64> = lock.fetch_all(&mut *conn).await?.into_iter().collect();
    // Judged in order: the first completion of an execution under its token finishes it.
    let verdicts: Vec<Result<&CompleteParams>> = batch
        .iter()
        .map(|params| {
            check_final(params)?;
            match running.remove(&params.id) {
                Some(token) if token == params.token.to_store() => Ok(params),
                other => {
                    if let Some(token) = other {
                        running.insert(params.id, token);
                    }
                    Err(Error::lease_lost(format!(
                        "execution {} is no longer running under token {}",
                        params.id, params.token
                    )))
                }
            }
        })
        .collect();
    let finishing: Vec<&CompleteParams> =
        verdicts.iter().filter_map(|verdict| verdict.as_ref().ok().copied()).collect();
    if !finishing.is_empty() {
        let listed = lists::padded(&finishing);
        let statement = lists::cases(EXECUTION_COMPLETE, listed.len());
        let mut update = sqlx::query(sqlx::AssertSqlSafe(statement));
        for params in &listed {
            update = update.bind(params.id).bind(params.status.as_str());
        }
        for params in &listed {
            update = update.bind(params.id).bind(params.detail.as_deref());
        }
        update = update.bind(now.as_millis());
        for params in &listed {
            update = update.bind(params.id);
        }
        update.execute(&mut *conn).await?;
        for params in finishing.iter().filter(|params| params.output.is_some()) {
            sqlx::query(EXECUTION_OUTPUT_INSERT)
                .bind(params.id)
                .bind(params.output.as_deref())
                .execute(&mut *conn)
                .await?;
        }
    }
    let ids: Vec<i64> = finishing.iter().map(|params| params.id).collect();
    let mut read: HashMap<i64, Execution> = read_executions(conn, &ids)
        .await?
        .into_iter()
        .map(|execution| (execution.id, execution))
        .collect();
    let finished: Vec<Result<Execution>> = verdicts
        .into_iter()
        .map(|verdict| {
            verdict.map(|params| {
                read.remove(&params.id).ok_or_else(|| {
                    Error::new(
                        ErrorKind::Internal,
                        format!("MySQL store: execution {} vanished while written", params.id),
                    )
                })
            })?
        })
        .collect();
    let done: Vec<Execution> = finished.iter().filter_map(|r| r.as_ref().ok().cloned()).collect();
    let retries = record_retries(conn, &done, now).await?;
    let freed = waits_on_overlap(conn, &done, now).await?;
    if freed || !retries.is_empty() {
        wakeups::raise(conn, DUE).await?;
    }
    Ok((finished, retries, freed))
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

/// Asks an execution to stop: a running one is flagged for its worker, a scheduled one is
/// cancelled at once; one commit.
pub(super) async fn request_cancel(inner: &Inner, id: i64) -> Result<bool> {
    let doing = format!("cancelling execution {id}");
    tx::transaction!(&inner.pool, &doing, |conn| async {
        let now = server_now(conn).await?;
        let done = sqlx::query(EXECUTION_REQUEST_CANCEL)
            .bind(now.as_millis())
            .bind(id)
            .execute(&mut *conn)
            .await?;
        Ok(done.rows_affected() == 1)
    })
}

/// Abandons the running executions with the oldest heartbeats past `stale_after` and records
/// their retries, in one transaction. Nothing stale (looked for first, outside any
/// transaction) costs one statement.
pub(super) async fn rescue(inner: &Inner, params: RescueParams) -> Result<Rescued> {
    let doing = "rescuing executions whose worker stopped heartbeating";
    let stale_after = millis(params.stale_after);
    let (oldest, now) =
        oldest_heartbeat(&inner.pool).await.map_err(|err| query_error(doing, err))?;
    if oldest.is_none_or(|at| at.as_millis() >= now.as_millis().saturating_sub(stale_after)) {
        return Ok(Rescued { oldest_heartbeat: oldest, ..Rescued::default() });
    }
    let rescued = tx::transaction!(&inner.pool, doing, |conn| async {
        let now = server_now(conn).await?;
        let cutoff = now.as_millis().saturating_sub(stale_after);
        let stale: Vec<ExecutionRow> = sqlx::query_as(EXECUTION_STALE)
            .bind(cutoff)
            .bind(i64::from(params.limit))
            .fetch_all(&mut *conn)
            .await?;
        let stale = rows::executions(stale)?;
        if !stale.is_empty() {
            let gone: Vec<_> = stale.iter().map(|e| json!([e.id, abandoned_detail(e)])).collect();
            sqlx::query(EXECUTION_ABANDON)
                .bind(serde_json::Value::from(gone).to_string())
                .bind(now.as_millis())
                .execute(&mut *conn)
                .await?;
        }
        let ids: Vec<i64> = stale.iter().map(|execution| execution.id).collect();
        let abandoned = read_executions(conn, &ids).await?;
        let retries = record_retries(conn, &abandoned, now).await?;
        let freed = waits_on_overlap(conn, &abandoned, now).await?;
        if freed || !retries.is_empty() {
            wakeups::raise(conn, DUE).await?;
        }
        let (oldest_heartbeat, _) = oldest_heartbeat(&mut *conn).await?;
        Ok((Rescued { abandoned, retries, oldest_heartbeat }, freed))
    });
    let (rescued, freed) = rescued?;
    if freed || !rescued.retries.is_empty() {
        inner.bell.ring().await;
    }
    Ok(rescued)
}

/// The oldest heartbeat of the executions running now, and the server's time.
async fn oldest_heartbeat<'c>(
    executor: impl sqlx::MySqlExecutor<'c>,
) -> sqlx::Result<(Option<StoreTime>, StoreTime)> {
    let (oldest, now): (Option<i64>, i64) =
        sqlx::query_as(EXECUTION_OLDEST_HEARTBEAT).fetch_one(executor).await?;
    Ok((oldest.map(StoreTime::from_millis), StoreTime::from_millis(now)))
}

fn abandoned_detail(execution: &Execution) -> String {
    let node = execution.node.as_ref().map_or("unknown", |node| node.as_str());
    match execution.heartbeat_at.or(execution.started_at) {
        Some(last) => format!("worker {node} stopped heartbeating (last at {last})"),
        None => format!("worker {node} stopped heartbeating"),
    }
}

/// Whether a job of the `finished` executions, whose overlap is not `allow`, has an execution
/// due at `now` still scheduled: it may have waited on one of them, so the workers are woken.
async fn waits_on_overlap(
    conn: &mut MySqlConnection,
    finished: &[Execution],
    now: StoreTime,
) -> std::result::Result<bool, Failure> {
    if finished.is_empty() {
        return Ok(false);
    }
    let statement = with_list(EXECUTION_WAITING_ON_OVERLAP, finished.len());
    let mut query = sqlx::query_scalar(sqlx::AssertSqlSafe(statement)).bind(now.as_millis());
    for execution in finished {
        query = query.bind(execution.job.as_str());
    }
    let waiting: i64 = query.fetch_one(conn).await?;
    Ok(waiting != 0)
}

/// Records the next attempt of every finished execution whose job's retry policy calls for one
/// (per [`rules::retry_due`]), one insert each, and reads them back in id order.
async fn record_retries(
    conn: &mut MySqlConnection,
    finished: &[Execution],
    now: StoreTime,
) -> std::result::Result<Vec<Execution>, Failure> {
    let candidates: Vec<&Execution> =
        finished.iter().filter(|execution| execution.status.is_retryable()).collect();
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let jobs =
        definitions::named(&mut *conn, candidates.iter().map(|e| &e.job), Lock::None).await?;
    let mut inserted = Vec::new();
    for execution in candidates {
        let Some(job) = jobs.get(&execution.job) else { continue };
        let retry = &job.definition.policy.retry;
        let Some(due_at) = rules::retry_due(retry, execution.status, execution.attempt, now) else {
            continue;
        };
        let done = sqlx::query(EXECUTION_RETRY_INSERT)
            .bind(execution.job.as_str())
            .bind(execution.fire_key.as_str())
            .bind(execution.scheduled_at.as_millis())
            .bind(execution.attempt.saturating_add(1))
            .bind(due_at.as_millis())
            .bind(now.as_millis())
            .execute(&mut *conn)
            .await?;
        if done.rows_affected() == 1 {
            inserted.push(i64::try_from(done.last_insert_id()).unwrap_or(i64::MAX));
        }
    }
    inserted.sort_unstable();
    read_executions(conn, &inserted).await
}
