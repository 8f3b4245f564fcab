//! Recording fires: the scheduler leader's batches of fires and missed runs, and executions
//! triggered outside the schedule (run-now, external triggers).

use std::collections::HashSet;

use baton_core::job::{
    FiresRecorded, MissedFires, NewFire, RecordFiresParams, TriggerOutcome, TriggerParams,
};
use baton_core::{Error, ExecutionStatus, FireKey, JobName, Result};
use serde_json::json;
use sqlx::MySqlConnection;

use super::definitions::{self, Lock};
use super::rows::ExecutionRow;
use super::{Inner, not_found, read_execution, server_now, tokens};
use crate::queries::{
    EXECUTION_COVERING, EXECUTION_FIRES_INSERT, EXECUTION_INSERT, EXECUTION_LATEST_ATTEMPT,
    EXECUTION_MISSED_INSERT, EXECUTION_MISSED_UNCOVERED, with_list,
};
use crate::tx::{self, Failure};
use crate::wakeups::{self, DUE};

/// Records fires and missed runs in one transaction: the jobs' rows are locked (shared for a
/// batch of fires, exclusive for one with missed runs, so that a missed run is decided against
/// every fire committed before it and no batch records one meanwhile); then one statement finds
/// the missed runs nothing accounts for yet, one inserts them and one inserts every fire. Every
/// instant is accounted for once: a missed run is left out when a schedule record of its job
/// already holds one of its instants, and a fire when a missed run covers it. Rings the due
/// bell when a fire may run.
pub(super) async fn record(inner: &Inner, params: RecordFiresParams) -> Result<FiresRecorded> {
    let RecordFiresParams { fires, missed } = params;
    if fires.is_empty() && missed.is_empty() {
        return Ok(FiresRecorded::default());
    }
    missed.iter().try_for_each(check_missed)?;
    let mut seen = HashSet::new();
    let names: Vec<&JobName> = fires
        .iter()
        .map(|fire| &fire.job)
        .chain(missed.iter().map(|run| &run.job))
        .filter(|name| seen.insert(*name))
        .collect();
    let lock = if missed.is_empty() { Lock::Shared } else { Lock::Exclusive };
    let all_missed_json = missed_json(&missed);
    let doing = format!("recording {} fires and {} missed runs", fires.len(), missed.len());
    let (inserted, may_run) = tx::transaction!(&inner.pool, &doing, |conn| async {
        let jobs = definitions::named(&mut *conn, names.iter().copied(), lock).await?;
        if let Some(missing) = names.iter().find(|name| !jobs.contains_key(**name)) {
            return Err(not_found(missing).into());
        }
        let now = server_now(conn).await?.as_millis();
        let mut inserted = 0;
        if !missed.is_empty() {
            let uncovered: Vec<i64> = sqlx::query_scalar(EXECUTION_MISSED_UNCOVERED)
                .bind(&all_missed_json)
                .fetch_all(&mut *conn)
                .await?;
            let runs: Vec<&MissedFires> = uncovered
                .iter()
                .filter_map(|position| missed.get(usize::try_from(position - 1).ok()?))
                .collect();
            if !runs.is_empty() {
                let done = sqlx::query(EXECUTION_MISSED_INSERT)
                    .bind(now)
                    .bind(now)
                    .bind(missed_json(runs))
                    .execute(&mut *conn)
                    .await?;
                inserted += done.rows_affected();
            }
        }
        let mut may_run = false;
        let fires = uncovered(conn, &fires).await?;
        if !fires.is_empty() {
            let done = sqlx::query(EXECUTION_FIRES_INSERT)
                .bind(now)
                .bind(now)
                .bind(fires_json(fires.iter().copied()))
                .execute(&mut *conn)
                .await?;
            inserted += done.rows_affected();
            may_run = done.rows_affected() > 0
                && fires.iter().any(|fire| {
                    jobs.get(&fire.job).is_some_and(|job| {
                        !job.paused
                            && job.skip_through.is_none_or(|through| fire.scheduled_at > through)
                    })
                });
        }
        if may_run {
            wakeups::raise(conn, DUE).await?;
        }
        Ok((inserted, may_run))
    })?;
    if may_run {
        inner.bell.ring().await;
    }
    Ok(FiresRecorded { inserted })
}

/// Records an execution outside the schedule, or answers the latest attempt of the fire when it
/// needs no new one. The job's row is locked first, which serializes the triggers of a job, so
/// that two triggers of one new key cannot both record its first attempt.
pub(super) async fn trigger(inner: &Inner, params: TriggerParams) -> Result<TriggerOutcome> {
    params.check()?;
    let doing = format!("triggering job {}", params.job);
    let outcome = tx::transaction!(&inner.pool, &doing, |conn| async {
        let jobs = definitions::named(&mut *conn, [&params.job], Lock::Exclusive).await?;
        if jobs.is_empty() {
            return Err(not_found(&params.job).into());
        }
        let now = server_now(conn).await?;
        let scheduled_at = params.scheduled_at.unwrap_or(now);
        let fire_key = params.fire_key.clone().unwrap_or_else(|| FireKey::at(scheduled_at));
        let latest: Option<ExecutionRow> = sqlx::query_as(EXECUTION_LATEST_ATTEMPT)
            .bind(params.job.as_str())
            .bind(fire_key.as_str())
            .fetch_optional(&mut *conn)
            .await?;
        let (attempt, scheduled_at) = match latest.map(ExecutionRow::into_execution).transpose()? {
            None => (1, scheduled_at),
            Some(latest) if needs_no_attempt(latest.status) => {
                return Ok(TriggerOutcome::Existing(latest));
            }
            // A new attempt of a recorded fire keeps the fire's instant.
            Some(latest) => (latest.attempt.saturating_add(1), latest.scheduled_at),
        };
        let claim = match &params.claim_for {
            Some(node) => Some((node, tokens::issue(&inner.tokens, 1).await?[0])),
            None => None,
        };
        let status =
            if claim.is_some() { ExecutionStatus::Running } else { ExecutionStatus::Scheduled };
        let started = claim.map(|_| now.as_millis());
        let done = sqlx::query(EXECUTION_INSERT)
            .bind(params.job.as_str())
            .bind(fire_key.as_str())
            .bind(scheduled_at.as_millis())
            .bind(attempt)
            .bind(params.trigger.as_str())
            .bind(status.as_str())
            .bind(now.as_millis())
            .bind(claim.map(|(node, _)| node.as_str()))
            .bind(claim.map(|(_, token)| token.to_store()))
            .bind(now.as_millis())
            .bind(started)
            .bind(started)
            .execute(&mut *conn)
            .await?;
        let id = i64::try_from(done.last_insert_id()).unwrap_or(i64::MAX);
        if claim.is_none() {
            wakeups::raise(conn, DUE).await?;
        }
        Ok(TriggerOutcome::Recorded(read_execution(conn, id).await?))
    })?;
    if matches!(outcome, TriggerOutcome::Recorded(_)) && params.claim_for.is_none() {
        inner.bell.ring().await;
    }
    Ok(outcome)
}

/// Whether a fire whose latest attempt is in `status` needs no new attempt.
fn needs_no_attempt(status: ExecutionStatus) -> bool {
    matches!(
        status,
        ExecutionStatus::Succeeded | ExecutionStatus::Scheduled | ExecutionStatus::Running
    )
}

fn check_missed(run: &MissedFires) -> Result<()> {
    if run.count == 0 || i64::try_from(run.count).is_err() || run.last < run.first {
        return Err(Error::invalid_input(format!(
            "invalid missed run of job {}: {} fires from {} to {}; expected at least one fire \
             and the last at or after the first",
            run.job, run.count, run.first, run.last
        )));
    }
    Ok(())
}

/// `[[job, fire_key, scheduled_at, due_at], ...]`.
/// The fires at an instant no missed run of their job covers: the missed runs reaching the
/// earliest of them are read in one statement and the fires checked against them here.
async fn uncovered<'f>(
    conn: &mut MySqlConnection,
    fires: &'f [NewFire],
) -> Result<Vec<&'f NewFire>, Failure> {
    let Some(earliest) = fires.iter().map(|fire| fire.scheduled_at).min() else {
        return Ok(Vec::new());
    };
    let mut seen = HashSet::new();
    let jobs: Vec<&str> =
        fires.iter().map(|fire| fire.job.as_str()).filter(|job| seen.insert(*job)).collect();
    let statement = with_list(EXECUTION_COVERING, jobs.len());
    let mut query = sqlx::query_as(sqlx::AssertSqlSafe(statement));
    for job in &jobs {
        query = query.bind(*job);
    }
    let runs: Vec<(String, i64, i64)> =
        query.bind(earliest.as_millis()).fetch_all(&mut *conn).await?;
    let covered = |fire: &NewFire| {
        let at = fire.scheduled_at.as_millis();
        runs.iter()
            .any(|(job, first, last)| job == fire.job.as_str() && (*first..=*last).contains(&at))
    };
    Ok(fires.iter().filter(|fire| !covered(fire)).collect())
}

fn fires_json<'a>(fires: impl IntoIterator<Item = &'a NewFire>) -> String {
    let rows: Vec<_> = fires
        .into_iter()
        .map(|fire| {
            json!([
                fire.job.as_str(),
                FireKey::at(fire.scheduled_at).as_str(),
                fire.scheduled_at.as_millis(),
                fire.due_at.as_millis()
            ])
        })
        .collect();
    serde_json::Value::from(rows).to_string()
}

/// `[[job, fire_key, first, last, count, reason], ...]`; counts were checked to fit.
fn missed_json<'a>(missed: impl IntoIterator<Item = &'a MissedFires>) -> String {
    let rows: Vec<_> = missed
        .into_iter()
        .map(|run| {
            json!([
                run.job.as_str(),
                FireKey::at(run.first).as_str(),
                run.first.as_millis(),
                run.last.as_millis(),
                run.count,
                run.reason
            ])
        })
        .collect();
    serde_json::Value::from(rows).to_string()
}
