//! Claiming due executions: the core's `claim_decision` for each, in order, inside a write
//! transaction (or, through a backlog of more than 1,000 candidates, a few in turn).
//!
//! Due executions, then those falling due within the claim's `ahead`, are decided in
//! `(due_at, id)` order until `limit` of them run; executions
//! that wait or are settled do not count against the limit, so a waiting fire never starves
//! the others. They are read in chunks of `limit`. For each chunk the transaction reads the
//! definitions of the chunk's jobs, each job's running execution with the lowest id and the
//! ids of its earliest due executions; decides every execution with
//! [`rules::claim_decision`], updating that picture after each decision so that later
//! decisions see earlier ones; and writes the outcome in at most five statements (tokens,
//! runs, settlements, cancellations), so the next chunk reads a picture that includes them.

use std::collections::{BTreeSet, HashMap};

use baton_core::job::rules::{self, ClaimDecision, JobState};
use baton_core::job::{ClaimParams, Claimed};
use baton_core::{Execution, ExecutionStatus, Job, JobName, Result, StoreTime};
use sqlx::SqliteConnection;

use super::rows::{self, ExecutionRow};
use super::{Inner, check_batch, definitions, tokens};
use crate::error::from_sqlx;
use crate::json::{self, Rows};
use crate::tx;

/// The most candidates one transaction of a claim examines. A claim going through a longer
/// backlog of executions it settles (skipped, missed) or leaves waiting commits what it decided
/// and goes on in a new transaction, so that other writers, lease renewals among them, get the
/// write lock in between.
const MAX_EXAMINED_PER_TRANSACTION: usize = 1000;

/// Claims due executions for a worker. Nothing due (checked first on the read pool) costs no
/// write lock; either way the answer carries the next due instant.
pub(super) async fn claim(inner: &Inner, params: ClaimParams) -> Result<Claimed> {
    let limit = check_batch("claim", params.limit)?;
    let jobs =
        (!params.jobs.is_empty()).then(|| json::strings(params.jobs.iter().map(JobName::as_str)));
    let doing = format!("claiming executions for {}", params.node);
    let checked_at = inner.now();
    let waiting = next_due(&inner.read, jobs.as_deref(), &doing).await?;
    if waiting.is_none_or(|due| due > checked_at.saturating_add(params.ahead)) {
        return Ok(Claimed { next_due: waiting, ..Claimed::at(checked_at) });
    }

    let mut tx = tx::begin(&inner.write, &doing).await?;
    let mut now = inner.now();
    let mut claimed = Claimed::at(now);
    let mut after = (i64::MIN, i64::MIN);
    let mut wrote = false;
    let mut examined = 0;
    loop {
        let due: Vec<ExecutionRow> =
            sqlx::query_as(include_str!("../../queries/execution_due.sql"))
                .bind(now.saturating_add(params.ahead).as_millis())
                .bind(jobs.as_deref())
                .bind(i64::from(limit))
                .bind(after.0)
                .bind(after.1)
                .fetch_all(&mut *tx)
                .await
                .map_err(|err| from_sqlx(&doing, err))?;
        let due = rows::executions(due)?;
        let Some(last) = due.last() else { break };
        after = (last.due_at.as_millis(), last.id);
        examined += due.len();
        let mut states = States::load(&mut tx, &due, now, limit, &doing).await?;
        let mut decisions = Vec::new();
        let mut runs = claimed.running.len();
        for execution in &due {
            if runs >= limit as usize {
                break;
            }
            let decision = states.decide(execution, now);
            runs += usize::from(matches!(decision, ClaimDecision::Run));
            decisions.push((execution.id, decision));
        }
        wrote |= decisions.iter().any(|(_, decision)| !matches!(decision, ClaimDecision::Wait));
        let chunk = apply(&mut tx, &params, &decisions, now, &doing).await?;
        claimed.running.extend(chunk.running);
        claimed.settled.extend(chunk.settled);
        if runs >= limit as usize || due.len() < limit as usize {
            break;
        }
        if examined >= MAX_EXAMINED_PER_TRANSACTION {
            // Hand the write lock on before going further through a backlog.
            finish(tx, wrote, &doing).await?;
            tx = tx::begin(&inner.write, &doing).await?;
            now = inner.now();
            claimed.now = now;
            (wrote, examined) = (false, 0);
        }
    }
    claimed.next_due = next_due(&mut *tx, jobs.as_deref(), &doing).await?;
    finish(tx, wrote, &doing).await?;
    Ok(claimed)
}

/// Commits a claim's transaction that decided something, and ends one that did not.
async fn finish(tx: tx::WriteTx, wrote: bool, doing: &str) -> Result<()> {
    if wrote {
        tx::commit(tx, doing).await
    } else {
        tx::finish_unchanged(tx).await;
        Ok(())
    }
}

/// The earliest due instant of the scheduled executions of `jobs` (a JSON array of names; of
/// any job when `None`).
async fn next_due<'c>(
    executor: impl sqlx::SqliteExecutor<'c>,
    jobs: Option<&str>,
    doing: &str,
) -> Result<Option<StoreTime>> {
    let due: Option<i64> = sqlx::query_scalar(include_str!("../../queries/execution_next_due.sql"))
        .bind(jobs)
        .fetch_one(executor)
        .await
        .map_err(|err| from_sqlx(doing, err))?;
    Ok(due.map(StoreTime::from_millis))
}

/// What the claim knows about each job of the due executions, kept up to date as decisions
/// are made.
struct States {
    jobs: HashMap<JobName, Job>,
    /// Each job's running execution with the lowest id.
    running: HashMap<JobName, Execution>,
    /// The ids of each job's earliest due executions: `limit + 1` of them, so that the lowest
    /// left is still known after every decision of the chunk removed one.
    waiting: HashMap<JobName, BTreeSet<i64>>,
}

impl States {
    async fn load(
        conn: &mut SqliteConnection,
        due: &[Execution],
        now: StoreTime,
        limit: u32,
        doing: &str,
    ) -> Result<States> {
        let mut names: Vec<&JobName> = due.iter().map(|execution| &execution.job).collect();
        names.sort();
        names.dedup();
        let jobs = definitions::named(conn, names.iter().copied()).await?;
        let names_json = json::strings(names.iter().map(|name| name.as_str()));
        let running: Vec<ExecutionRow> =
            sqlx::query_as(include_str!("../../queries/execution_first_running.sql"))
                .bind(&names_json)
                .fetch_all(&mut *conn)
                .await
                .map_err(|err| from_sqlx(doing, err))?;
        let running = rows::executions(running)?
            .into_iter()
            .map(|execution| (execution.job.clone(), execution))
            .collect();
        let first_waiting: Vec<(String, i64)> =
            sqlx::query_as(include_str!("../../queries/execution_first_waiting.sql"))
                .bind(now.as_millis())
                .bind(&names_json)
                .bind(i64::from(limit) + 1)
                .fetch_all(&mut *conn)
                .await
                .map_err(|err| from_sqlx(doing, err))?;
        let mut waiting: HashMap<JobName, BTreeSet<i64>> = HashMap::new();
        for (job, id) in first_waiting {
            if let Some(name) = names.iter().find(|name| name.as_str() == job) {
                waiting.entry((*name).clone()).or_default().insert(id);
            }
        }
        Ok(States { jobs, running, waiting })
    }

    /// Decides what to do with `due` and records the decision's effect on its job's state.
    fn decide(&mut self, due: &Execution, now: StoreTime) -> ClaimDecision {
        let state = JobState {
            job: self.jobs.get(&due.job),
            running: self.running.get(&due.job),
            first_waiting: self.waiting.get(&due.job).and_then(|ids| ids.first().copied()),
        };
        let decision = rules::claim_decision(due, state, now);
        match &decision {
            ClaimDecision::Run => {
                self.leave_waiting(due);
                let lowest = self.running.get(&due.job).is_none_or(|running| due.id < running.id);
                if lowest {
                    let mut started = due.clone();
                    started.status = ExecutionStatus::Running;
                    started.started_at = Some(now.max(due.due_at));
                    self.running.insert(due.job.clone(), started);
                }
            }
            ClaimDecision::Settle(..) => self.leave_waiting(due),
            ClaimDecision::WaitAndCancel(id) => {
                if let Some(running) = self.running.get_mut(&due.job).filter(|r| r.id == *id) {
                    running.cancel_requested = true;
                }
            }
            _ => {}
        }
        decision
    }

    fn leave_waiting(&mut self, due: &Execution) {
        if let Some(ids) = self.waiting.get_mut(&due.job) {
            ids.remove(&due.id);
        }
    }
}

/// Writes the decisions: new tokens for the runs, then the runs, settlements and cancellations,
/// one statement each. Returns the records in the order of the decisions.
async fn apply(
    conn: &mut SqliteConnection,
    params: &ClaimParams,
    decisions: &[(i64, ClaimDecision)],
    now: StoreTime,
    doing: &str,
) -> Result<Claimed> {
    let runs: Vec<i64> = decisions
        .iter()
        .filter(|(_, decision)| matches!(decision, ClaimDecision::Run))
        .map(|(id, _)| *id)
        .collect();
    let mut run_rows = Rows::default();
    for (id, token) in runs.iter().zip(tokens::issue(conn, runs.len()).await?) {
        run_rows.push(&[(*id).into(), token.to_store().into()]);
    }
    let mut settle_rows = Rows::default();
    let mut cancels = Vec::new();
    for (id, decision) in decisions {
        match decision {
            ClaimDecision::Settle(status, detail) => {
                settle_rows.push(&[(*id).into(), status.as_str().into(), detail.as_str().into()])
            }
            ClaimDecision::WaitAndCancel(running) if !cancels.contains(running) => {
                cancels.push(*running)
            }
            _ => {}
        }
    }

    let mut claimed = Claimed::at(now);
    if run_rows.len() > 0 {
        let expected = run_rows.len();
        let started: Vec<ExecutionRow> =
            sqlx::query_as(include_str!("../../queries/execution_claim_run.sql"))
                .bind(now.as_millis())
                .bind(params.node.as_str())
                .bind(run_rows.finish())
                .fetch_all(&mut *conn)
                .await
                .map_err(|err| from_sqlx(doing, err))?;
        claimed.running = in_order(rows::executions(started)?, decisions, expected)?;
    }
    if settle_rows.len() > 0 {
        let expected = settle_rows.len();
        let settled: Vec<ExecutionRow> =
            sqlx::query_as(include_str!("../../queries/execution_claim_settle.sql"))
                .bind(now.as_millis())
                .bind(settle_rows.finish())
                .fetch_all(&mut *conn)
                .await
                .map_err(|err| from_sqlx(doing, err))?;
        claimed.settled = in_order(rows::executions(settled)?, decisions, expected)?;
    }
    if !cancels.is_empty() {
        sqlx::query(include_str!("../../queries/execution_claim_cancel.sql"))
            .bind(json::ints(cancels))
            .execute(&mut *conn)
            .await
            .map_err(|err| from_sqlx(doing, err))?;
    }
    Ok(claimed)
}

/// Puts updated records back in the order of the decisions (`RETURNING` has no order), after
/// checking that every one was updated.
fn in_order(
    mut records: Vec<Execution>,
    decisions: &[(i64, ClaimDecision)],
    expected: usize,
) -> Result<Vec<Execution>> {
    if records.len() != expected {
        return Err(baton_core::Error::new(
            baton_core::ErrorKind::Internal,
            format!(
                "SQLite store: a claim updated {} of {expected} executions it had read",
                records.len()
            ),
        ));
    }
    let position: HashMap<i64, usize> =
        decisions.iter().enumerate().map(|(i, (id, _))| (*id, i)).collect();
    records.sort_by_key(|record| position.get(&record.id).copied().unwrap_or(usize::MAX));
    Ok(records)
}
