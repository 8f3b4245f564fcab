//! Claiming due executions: [`rules::claim_decision`] for each, in `(due_at, id)` order, inside
//! one transaction that commits once.
//!
//! The due executions are locked with `FOR UPDATE SKIP LOCKED`, in chunks of the claim's
//! limit, so that racing claimers take different executions without waiting on each other.
//! The chunk's jobs are read as committed; the rows of those whose overlap policy is not
//! `allow` are then locked `FOR UPDATE` in name order and read again: two claimers that took
//! executions of one such job decide them one after the other, each reading (at READ
//! COMMITTED, after the lock) what the other committed, so an overlap decision stays exclusive.
//! Jobs that allow overlap are not locked, as on PostgreSQL: no decision of theirs depends on
//! what another claim writes, so their claims run side by side. With the locks held the claim
//! reads the server's time, each locked job's running execution with the lowest id and the ids
//! of its earliest due executions, decides every execution of the chunk, keeping that picture
//! up to date after each decision, and writes the outcome in a few batched statements (runs,
//! settlements, cancellations), with tokens drawn on their own (`tokens`). Executions that
//! wait or are settled do not count against the limit, so a waiting fire never starves the
//! others.

use std::collections::{BTreeSet, HashMap};

use baton_core::job::rules::{self, ClaimDecision, JobState};
use baton_core::job::{ClaimParams, Claimed};
use baton_core::schedule::OverlapPolicy;
use baton_core::{Error, ErrorKind, Execution, ExecutionStatus, Job, JobName, Result, StoreTime};
use serde_json::json;
use sqlx::MySqlConnection;

use super::definitions::{self, Lock};
use super::rows::{self, ExecutionRow, job_name};
use super::{Inner, check_batch, read_executions, server_now, tokens};
use crate::connections::Connections;
use crate::error::query_error;
use crate::queries::{
    EXECUTION_CLAIM_CANCEL, EXECUTION_CLAIM_RUN, EXECUTION_CLAIM_SETTLE, EXECUTION_DUE,
    EXECUTION_FIRST_RUNNING, EXECUTION_FIRST_WAITING, EXECUTION_NEXT_DUE, EXECUTION_NEXT_DUE_ANY,
    union_all, with_list,
};
use crate::tx::{self, Failure};

/// The most due executions one claim examines; a claim going through a longer backlog of
/// executions it settles or leaves waiting stops there, and the worker claims again.
const MAX_EXAMINED: usize = 1000;

/// Claims due executions for a worker. A look first, outside any transaction, finds whether
/// anything is due: an idle claim costs one statement and takes no lock.
pub(super) async fn claim(inner: &Inner, params: ClaimParams) -> Result<Claimed> {
    let limit = check_batch("claim", params.limit)?;
    let doing = format!("claiming executions for {}", params.node);
    let (next_due, now) =
        next_due(&inner.pool, &params.jobs).await.map_err(|err| query_error(&doing, err))?;
    if next_due.is_none_or(|due| due > now.saturating_add(params.ahead)) {
        return Ok(Claimed { next_due, ..Claimed::at(now) });
    }
    tx::transaction!(&inner.pool, &doing, |conn| claim_in(conn, &inner.tokens, &params, limit))
}

/// The earliest due instant of the claimed jobs' scheduled executions, and the server's time.
async fn next_due<'c>(
    executor: impl sqlx::MySqlExecutor<'c>,
    jobs: &[JobName],
) -> sqlx::Result<(Option<StoreTime>, StoreTime)> {
    let rows: Vec<(Option<i64>, i64)> = if jobs.is_empty() {
        sqlx::query_as(EXECUTION_NEXT_DUE_ANY).fetch_all(executor).await?
    } else {
        let statement = union_all(EXECUTION_NEXT_DUE, jobs.len());
        let mut query = sqlx::query_as(sqlx::AssertSqlSafe(statement));
        for job in jobs {
            query = query.bind(job.as_str());
        }
        query.fetch_all(executor).await?
    };
    let due = rows.iter().filter_map(|(due, _)| *due).min();
    let now = rows.iter().map(|(_, now)| *now).max().unwrap_or_default();
    Ok((due.map(StoreTime::from_millis), StoreTime::from_millis(now)))
}

/// One attempt of a claim, on its transaction.
async fn claim_in(
    conn: &mut MySqlConnection,
    lent: &Connections,
    params: &ClaimParams,
    limit: u32,
) -> std::result::Result<Claimed, Failure> {
    let due_by = server_now(conn).await?.saturating_add(params.ahead);
    let mut claimed: Option<Claimed> = None;
    let mut after = (i64::MIN, i64::MIN);
    let mut examined = 0;
    loop {
        let chunk = due_chunk(conn, params, due_by, after, limit).await?;
        let Some(last) = chunk.last() else { break };
        after = (last.due_at.as_millis(), last.id);
        examined += chunk.len();
        let jobs = deciding_on(conn, chunk.iter().map(|e| &e.job)).await?;
        let claimed = match &mut claimed {
            Some(claimed) => claimed,
            None => claimed.insert(Claimed::at(server_now(conn).await?)),
        };
        let now = claimed.now;
        let mut states = States::load(conn, jobs, now, limit).await?;
        let mut decisions = Vec::new();
        let mut runs = claimed.running.len();
        for execution in &chunk {
            if runs >= limit as usize {
                break;
            }
            let decision = states.decide(execution, now);
            runs += usize::from(decision == ClaimDecision::Run);
            decisions.push((execution.id, decision));
        }
        apply(conn, lent, params, &decisions, claimed).await?;
        if runs >= limit as usize || chunk.len() < limit as usize || examined >= MAX_EXAMINED {
            break;
        }
    }
    let (next_due, now) = next_due(&mut *conn, &params.jobs).await?;
    let mut claimed = claimed.unwrap_or_else(|| Claimed::at(now));
    claimed.next_due = next_due;
    Ok(claimed)
}

/// The jobs `names`, as a claim decides on them: each read as committed, and those whose
/// overlap policy is not `allow` locked in name order and read again under the lock (one that
/// is gone by then is not registered).
async fn deciding_on<'n>(
    conn: &mut MySqlConnection,
    names: impl IntoIterator<Item = &'n JobName>,
) -> std::result::Result<HashMap<JobName, Job>, Failure> {
    let mut jobs = definitions::named(&mut *conn, names, Lock::None).await?;
    let exclusive: Vec<JobName> =
        jobs.values().filter(|job| !allows_overlap(job)).map(|job| job.name().clone()).collect();
    if !exclusive.is_empty() {
        let mut locked = definitions::named(&mut *conn, &exclusive, Lock::Exclusive).await?;
        for name in exclusive {
            match locked.remove(&name) {
                Some(job) => jobs.insert(name, job),
                None => jobs.remove(&name),
            };
        }
    }
    Ok(jobs)
}

/// Whether `job` runs its executions side by side, so that no claim decision of it depends on
/// its other executions.
fn allows_overlap(job: &Job) -> bool {
    job.definition.policy.overlap == OverlapPolicy::Allow
}

/// Locks the next chunk of due executions after `after` (skipping those others have locked).
async fn due_chunk(
    conn: &mut MySqlConnection,
    params: &ClaimParams,
    due_by: StoreTime,
    after: (i64, i64),
    limit: u32,
) -> std::result::Result<Vec<Execution>, Failure> {
    let statement = with_list(EXECUTION_DUE, params.jobs.len());
    let mut query = sqlx::query_as(sqlx::AssertSqlSafe(statement))
        .bind(due_by.as_millis())
        .bind(params.jobs.is_empty());
    for job in &params.jobs {
        query = query.bind(job.as_str());
    }
    let due: Vec<ExecutionRow> = query
        .bind(after.0)
        .bind(after.0)
        .bind(after.1)
        .bind(i64::from(limit))
        .fetch_all(&mut *conn)
        .await?;
    Ok(rows::executions(due)?)
}

/// What the claim knows about the jobs of a chunk, kept up to date as decisions are made.
struct States {
    jobs: HashMap<JobName, Job>,
    /// Each job's running execution with the lowest id.
    running: HashMap<JobName, Execution>,
    /// The ids of each job's earliest due executions: `limit + 1` of them, so that the lowest
    /// left is still known after every decision of the chunk took one away.
    waiting: HashMap<JobName, BTreeSet<i64>>,
}

impl States {
    /// Reads the running and waiting executions of the `jobs` that do not allow overlap (and
    /// so were locked); the decisions of the others do not depend on them.
    async fn load(
        conn: &mut MySqlConnection,
        jobs: HashMap<JobName, Job>,
        now: StoreTime,
        limit: u32,
    ) -> std::result::Result<States, Failure> {
        let mut states = States { jobs, running: HashMap::new(), waiting: HashMap::new() };
        let names: Vec<&str> = states
            .jobs
            .values()
            .filter(|job| !allows_overlap(job))
            .map(|job| job.name().as_str())
            .collect();
        if names.is_empty() {
            return Ok(states);
        }
        let mut running =
            sqlx::query_as(sqlx::AssertSqlSafe(with_list(EXECUTION_FIRST_RUNNING, names.len())));
        for name in &names {
            running = running.bind(*name);
        }
        let running: Vec<ExecutionRow> = running.fetch_all(&mut *conn).await?;
        for execution in rows::executions(running)? {
            states.running.insert(execution.job.clone(), execution);
        }
        let mut waiting =
            sqlx::query_as(sqlx::AssertSqlSafe(union_all(EXECUTION_FIRST_WAITING, names.len())));
        for name in &names {
            waiting = waiting.bind(*name).bind(now.as_millis()).bind(i64::from(limit) + 1);
        }
        let waiting: Vec<(String, i64)> = waiting.fetch_all(&mut *conn).await?;
        for (job, id) in waiting {
            states.waiting.entry(job_name(&job)?).or_default().insert(id);
        }
        Ok(states)
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
                self.stop_waiting(due);
                if self.running.get(&due.job).is_none_or(|running| due.id < running.id) {
                    let started = Execution {
                        status: ExecutionStatus::Running,
                        started_at: Some(now.max(due.due_at)),
                        ..due.clone()
                    };
                    self.running.insert(due.job.clone(), started);
                }
            }
            ClaimDecision::Settle(..) => self.stop_waiting(due),
            ClaimDecision::WaitAndCancel(id) => {
                if let Some(running) = self.running.get_mut(&due.job).filter(|r| r.id == *id) {
                    running.cancel_requested = true;
                }
            }
            _ => {}
        }
        decision
    }

    fn stop_waiting(&mut self, due: &Execution) {
        if let Some(ids) = self.waiting.get_mut(&due.job) {
            ids.remove(&due.id);
        }
    }
}

/// Writes the decisions: tokens for the runs (drawn on their own, after the jobs' rows were
/// locked), then the runs, settlements and cancellations, one statement each, and reads the
/// started and settled executions back into `claimed`, in the order of the decisions.
async fn apply(
    conn: &mut MySqlConnection,
    lent: &Connections,
    params: &ClaimParams,
    decisions: &[(i64, ClaimDecision)],
    claimed: &mut Claimed,
) -> std::result::Result<(), Failure> {
    let now = claimed.now.as_millis();
    let runs: Vec<i64> = decisions
        .iter()
        .filter(|(_, decision)| *decision == ClaimDecision::Run)
        .map(|(id, _)| *id)
        .collect();
    let mut settles = Vec::new();
    let mut cancels = Vec::new();
    for (id, decision) in decisions {
        match decision {
            ClaimDecision::Settle(status, detail) => {
                settles.push(json!([id, status.as_str(), detail]))
            }
            ClaimDecision::WaitAndCancel(running) if !cancels.contains(running) => {
                cancels.push(*running)
            }
            _ => {}
        }
    }
    if !runs.is_empty() {
        let tokens = tokens::issue(lent, runs.len()).await?;
        let pairs: Vec<_> =
            runs.iter().zip(&tokens).map(|(id, token)| json!([id, token.to_store()])).collect();
        let started = sqlx::query(EXECUTION_CLAIM_RUN)
            .bind(serde_json::Value::from(pairs).to_string())
            .bind(params.node.as_str())
            .bind(now)
            .bind(now)
            .execute(&mut *conn)
            .await?;
        check_all_written(started.rows_affected(), runs.len())?;
    }
    if !settles.is_empty() {
        let expected = settles.len();
        let settled = sqlx::query(EXECUTION_CLAIM_SETTLE)
            .bind(serde_json::Value::from(settles).to_string())
            .bind(now)
            .execute(&mut *conn)
            .await?;
        check_all_written(settled.rows_affected(), expected)?;
    }
    if !cancels.is_empty() {
        let mut cancel =
            sqlx::query(sqlx::AssertSqlSafe(with_list(EXECUTION_CLAIM_CANCEL, cancels.len())));
        for id in &cancels {
            cancel = cancel.bind(*id);
        }
        cancel.execute(&mut *conn).await?;
    }
    let written: Vec<i64> = decisions
        .iter()
        .filter(|(_, decision)| matches!(decision, ClaimDecision::Run | ClaimDecision::Settle(..)))
        .map(|(id, _)| *id)
        .collect();
    for execution in read_executions(conn, &written).await? {
        if execution.status == ExecutionStatus::Running {
            claimed.running.push(execution);
        } else {
            claimed.settled.push(execution);
        }
    }
    Ok(())
}

/// Fails when a batched update changed fewer of the locked executions than it was given.
fn check_all_written(written: u64, expected: usize) -> std::result::Result<(), Failure> {
    if written == expected as u64 {
        return Ok(());
    }
    Err(Failure::Refused(Error::new(
        ErrorKind::Internal,
        format!("MySQL store: a claim updated {written} of the {expected} executions it locked"),
    )))
}
