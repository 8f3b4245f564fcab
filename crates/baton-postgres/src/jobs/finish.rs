//! Ending executions: completion under a token (one or many at once), cancellation, and the
//! rescue of executions whose worker stopped heartbeating. Each is one statement and one
//! commit, retries included.

use std::collections::HashMap;

use baton_core::job::{CompleteParams, Completed, RescueParams, Rescued};
use baton_core::{Error, Execution, ExecutionStatus, FencingToken, Result};

use super::{PostgresJobStore, internal, millis};
use crate::queries::{EXECUTION_COMPLETE, EXECUTION_REQUEST_CANCEL, EXECUTION_RESCUE};
use crate::row;

impl PostgresJobStore {
    /// Finishes several running executions in one statement and one commit, each a
    /// compare-and-set on its token, recording the retries their policies call for. Answers
    /// one entry per execution asked, in order: its completion, or `None` when it no longer
    /// runs under that token (nothing changed for it). A status that is not final fails the
    /// whole call before anything changes.
    pub(super) async fn complete_all(
        &self,
        params: Vec<CompleteParams>,
    ) -> Result<Vec<Option<Completed>>> {
        if params.is_empty() {
            return Ok(Vec::new());
        }
        for one in &params {
            check_final(one.status)?;
        }
        let ids: Vec<i64> = params.iter().map(|p| p.id).collect();
        let tokens: Vec<i64> = params.iter().map(|p| p.token.to_store()).collect();
        let statuses: Vec<&str> = params.iter().map(|p| p.status.as_str()).collect();
        let details: Vec<Option<&str>> = params.iter().map(|p| p.detail.as_deref()).collect();
        let outputs: Vec<Option<&str>> = params.iter().map(|p| p.output.as_deref()).collect();
        let query = sqlx::query(EXECUTION_COMPLETE)
            .bind(&ids)
            .bind(&tokens)
            .bind(&statuses)
            .bind(&details)
            .bind(&outputs);
        let what = || match ids.as_slice() {
            [id] => format!("completing execution {id}"),
            _ => format!("completing {} executions", ids.len()),
        };
        let rows = self.connections.fetch_all(query, what).await?;
        let mut finished: HashMap<i64, Execution> = HashMap::with_capacity(rows.len());
        let mut retries: Vec<Execution> = Vec::new();
        for found in &rows {
            let execution = row::execution(found)?;
            match row::text(found, "part")?.as_str() {
                "execution" => {
                    finished.insert(execution.id, execution);
                }
                "retry" => retries.push(execution),
                other => return Err(internal(format!("unexpected completion answer {other:?}"))),
            }
        }
        Ok(params
            .iter()
            .map(|one| {
                let execution = finished.get(&one.id).filter(|e| e.token == Some(one.token))?;
                let retry = retries
                    .iter()
                    .find(|r| {
                        r.job == execution.job
                            && r.fire_key == execution.fire_key
                            && r.attempt == execution.attempt.saturating_add(1)
                    })
                    .cloned();
                Some(Completed { execution: execution.clone(), retry })
            })
            .collect())
    }

    pub(super) async fn finish(&self, params: CompleteParams) -> Result<Completed> {
        let (id, token) = (params.id, params.token);
        let completed = self.complete_all(vec![params]).await?.pop().flatten();
        completed.ok_or_else(|| lost(id, token))
    }

    /// [`JobStore::complete_batch`](baton_core::JobStore::complete_batch) in one statement:
    /// each completion judged on its own, a stale one answering `LeaseLost`. A status that is
    /// not final is refused for its own entry, and the rest are completed.
    pub(super) async fn finish_batch(&self, batch: Vec<CompleteParams>) -> Vec<Result<Completed>> {
        let valid: Vec<CompleteParams> =
            batch.iter().filter(|p| check_final(p.status).is_ok()).cloned().collect();
        let mut completed = match self.complete_all(valid).await {
            Ok(completed) => completed.into_iter(),
            Err(err) => {
                let kind = err.kind();
                let message = err.to_string();
                return batch.iter().map(|_| Err(Error::new(kind, message.clone()))).collect();
            }
        };
        batch
            .iter()
            .map(|params| {
                check_final(params.status)?;
                completed.next().flatten().ok_or_else(|| lost(params.id, params.token))
            })
            .collect()
    }

    pub(super) async fn cancel(&self, id: i64) -> Result<bool> {
        let changed = self
            .connections
            .fetch_optional(sqlx::query(EXECUTION_REQUEST_CANCEL).bind(id), || {
                format!("cancelling execution {id}")
            })
            .await?;
        Ok(changed.is_some())
    }

    pub(super) async fn rescue_stale(&self, params: RescueParams) -> Result<Rescued> {
        let query = sqlx::query(EXECUTION_RESCUE)
            .bind(millis(params.stale_after))
            .bind(i64::from(params.limit));
        let rows = self
            .connections
            .fetch_all(query, || "rescuing executions whose worker stopped".to_string())
            .await?;
        let mut rescued = Rescued::default();
        for found in &rows {
            match row::text(found, "part")?.as_str() {
                "abandoned" => rescued.abandoned.push(row::execution(found)?),
                "retry" => rescued.retries.push(row::execution(found)?),
                "oldest" => rescued.oldest_heartbeat = row::instant(found, "heartbeat_at")?,
                other => return Err(internal(format!("unexpected rescue answer {other:?}"))),
            }
        }
        rescued.abandoned.sort_by_key(|e| (e.heartbeat_at, e.id));
        rescued.retries.sort_by_key(|e| e.id);
        Ok(rescued)
    }
}

fn check_final(status: ExecutionStatus) -> Result<()> {
    if matches!(
        status,
        ExecutionStatus::Succeeded
            | ExecutionStatus::Failed
            | ExecutionStatus::TimedOut
            | ExecutionStatus::Cancelled
    ) {
        return Ok(());
    }
    Err(Error::invalid_input(format!(
        "invalid completion status {status}: expected succeeded, failed, timed_out or cancelled"
    )))
}

fn lost(id: i64, token: FencingToken) -> Error {
    Error::lease_lost(format!("execution {id} is no longer running under token {token}"))
}
