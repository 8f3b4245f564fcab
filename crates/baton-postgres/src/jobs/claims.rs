//! Claiming due executions and heartbeating running ones.

use std::collections::HashMap;

use baton_core::job::{ClaimParams, Claimed, HeartbeatOutcome, HeartbeatParams};
use baton_core::page::MAX_PAGE_SIZE;
use baton_core::{Error, ExecutionStatus, Result};

use super::{PostgresJobStore, internal, millis};
use crate::queries::{EXECUTION_CLAIM, EXECUTION_HEARTBEAT};
use crate::row;

/// The most candidates a follow-up round of one claim examines (see `claim_due`).
const MAX_ROUND: u32 = 1000;

impl PostgresJobStore {
    /// Claims up to `limit` runs, oldest due first, as the reference store does: executions the
    /// claim settles (skipped, missed) do not count against the limit.
    ///
    /// One statement examines `limit` candidates and usually ends the claim. Only when it
    /// settled some and started fewer than `limit` does another round follow, examining twice
    /// as many candidates as were settled (up to [`MAX_ROUND`]) while starting at most what is
    /// left of the limit, until a round settles nothing.
    pub(super) async fn claim_due(&self, params: ClaimParams) -> Result<Claimed> {
        if params.limit == 0 || params.limit > MAX_PAGE_SIZE {
            return Err(Error::invalid_input(format!(
                "invalid claim limit {}: expected 1 to {MAX_PAGE_SIZE}",
                params.limit
            )));
        }
        let jobs: Vec<&str> = params.jobs.iter().map(|job| job.as_str()).collect();
        let mut claimed = self.claim_round(&params, &jobs, params.limit, params.limit).await?;
        let mut settled = claimed.settled.len() as u32;
        loop {
            let started = claimed.running.len() as u32;
            if settled == 0 || started >= params.limit {
                return Ok(claimed);
            }
            let window = (params.limit - started).max(settled.saturating_mul(2)).min(MAX_ROUND);
            let round = self.claim_round(&params, &jobs, window, params.limit - started).await?;
            settled = round.settled.len() as u32;
            claimed.running.extend(round.running);
            claimed.settled.extend(round.settled);
            claimed.now = round.now;
            claimed.next_due = round.next_due;
        }
    }

    /// One claim statement: examines up to `window` candidates and starts at most `startable`.
    async fn claim_round(
        &self,
        params: &ClaimParams,
        jobs: &[&str],
        window: u32,
        startable: u32,
    ) -> Result<Claimed> {
        let query = sqlx::query(EXECUTION_CLAIM)
            .bind(params.node.as_str())
            .bind(i64::from(window))
            .bind(jobs)
            .bind(i64::from(startable))
            .bind(millis(params.ahead));
        let rows = self
            .connections
            .fetch_all(query, || format!("claiming due executions for {}", params.node))
            .await?;
        let first = rows.first().ok_or_else(|| internal("a claim answered no row".to_string()))?;
        let mut claimed = Claimed::at(row::now(first)?);
        claimed.next_due = row::instant(first, "next_due_ms")?;
        for found in &rows {
            if row::joined_id(found, "id")?.is_none() {
                continue;
            }
            let execution = row::execution(found)?;
            if execution.status == ExecutionStatus::Running {
                claimed.running.push(execution);
            } else {
                claimed.settled.push(execution);
            }
        }
        Ok(claimed)
    }

    /// Stamps the heartbeat of the listed executions still running under their tokens on the
    /// node, in one statement.
    pub(super) async fn beat(&self, params: HeartbeatParams) -> Result<HeartbeatOutcome> {
        if params.executions.is_empty() {
            return Ok(HeartbeatOutcome::default());
        }
        let ids: Vec<i64> = params.executions.iter().map(|(id, _)| *id).collect();
        let tokens: Vec<i64> =
            params.executions.iter().map(|(_, token)| token.to_store()).collect();
        let query =
            sqlx::query(EXECUTION_HEARTBEAT).bind(params.node.as_str()).bind(&ids).bind(&tokens);
        let rows = self
            .connections
            .fetch_all(query, || format!("heartbeating the executions of {}", params.node))
            .await?;
        let mut beaten = HashMap::with_capacity(rows.len());
        for found in &rows {
            beaten.insert(row::id(found, "id")?, row::flag(found, "cancel_requested")?);
        }
        let mut outcome = HeartbeatOutcome::default();
        for id in ids {
            match beaten.get(&id) {
                Some(true) => outcome.cancel.push(id),
                Some(false) => {}
                None => outcome.lost.push(id),
            }
        }
        Ok(outcome)
    }
}
