//! Recording executions: the scheduler leader's batches of fires and missed runs, and
//! triggers outside the schedule (one short transaction each).

use baton_core::job::{FiresRecorded, RecordFiresParams, TriggerOutcome, TriggerParams};
use baton_core::{Error, ErrorKind, Execution, ExecutionStatus, FireKey, Result};
use sqlx::postgres::PgRow;
use sqlx::{Connection, PgConnection};

use super::{PostgresJobStore, internal, not_registered};
use crate::error::query_error;
use crate::queries::{
    EXECUTION_LATEST_ATTEMPT, EXECUTION_RECORD_FIRES, EXECUTION_RECORD_LOCK_FIRES,
    EXECUTION_RECORD_LOCK_MISSED, EXECUTION_TRIGGER_INSERT, EXECUTION_TRIGGER_LOCK,
};
use crate::row;

/// The arrays one `record_fires` statement takes, built in Rust so that fire keys are
/// formatted by [`FireKey::at`] alone.
#[derive(Default)]
struct Batch<'a> {
    jobs: Vec<&'a str>,
    instants: Vec<i64>,
    due: Vec<i64>,
    keys: Vec<String>,
    missed_jobs: Vec<&'a str>,
    firsts: Vec<i64>,
    lasts: Vec<i64>,
    counts: Vec<i64>,
    reasons: Vec<&'a str>,
    missed_keys: Vec<String>,
}

impl<'a> Batch<'a> {
    fn new(params: &'a RecordFiresParams) -> Result<Self> {
        let mut batch = Batch::default();
        for fire in &params.fires {
            batch.jobs.push(fire.job.as_str());
            batch.instants.push(fire.scheduled_at.as_millis());
            batch.due.push(fire.due_at.as_millis());
            batch.keys.push(FireKey::at(fire.scheduled_at).as_str().to_owned());
        }
        for run in &params.missed {
            if run.count == 0 || run.last < run.first {
                return Err(Error::invalid_input(format!(
                    "invalid missed run of job {} from {} to {} counting {}: expected at least \
                     one fire and an end not before the start",
                    run.job, run.first, run.last, run.count
                )));
            }
            batch.missed_jobs.push(run.job.as_str());
            batch.firsts.push(run.first.as_millis());
            batch.lasts.push(run.last.as_millis());
            batch.counts.push(i64::try_from(run.count).unwrap_or(i64::MAX));
            batch.reasons.push(&run.reason);
            batch.missed_keys.push(FireKey::at(run.first).as_str().to_owned());
        }
        Ok(batch)
    }
}

impl PostgresJobStore {
    /// Records a batch in one transaction: the rows of its jobs are locked (in name order), then
    /// one statement records every fire and missed run. A batch with missed runs excludes every
    /// other batch of its jobs and a batch of fires only those with missed runs, so that two
    /// leaders never both account for one instant, one as run and one as missed: the first to
    /// record it decides it, and the other's statement reads what it committed.
    pub(super) async fn record(&self, params: RecordFiresParams) -> Result<FiresRecorded> {
        if params.fires.is_empty() && params.missed.is_empty() {
            return Ok(FiresRecorded::default());
        }
        let batch = Batch::new(&params)?;
        let action = || "recording fires".to_string();
        let mut conn = self.connections.get().await.map_err(|err| query_error(action(), err))?;
        let answer = record_in(&mut conn, &batch).await;
        let answer = conn
            .finish(answer)
            .map_err(|err| query_error(action(), err))?
            .ok_or_else(|| internal("recording fires answered no row".to_string()))?;
        let unknown = row::texts(&answer, "unknown")?;
        if let Some(first) = unknown.first() {
            let message = if unknown.len() == 1 {
                format!("recording fires: job {first} is not registered; nothing was recorded")
            } else {
                format!(
                    "recording fires: jobs {} are not registered; nothing was recorded",
                    unknown.join(", ")
                )
            };
            return Err(Error::new(ErrorKind::NotFound, message));
        }
        Ok(FiresRecorded { inserted: row::total(&answer, "inserted")? })
    }

    pub(super) async fn record_trigger(&self, params: TriggerParams) -> Result<TriggerOutcome> {
        params.check()?;
        let action = || format!("triggering job {}", params.job);
        let mut conn = self.connections.get().await.map_err(|err| query_error(action(), err))?;
        let answer = trigger_in(&mut conn, &params).await;
        conn.finish(answer).map_err(|err| query_error(action(), err))?
    }
}

/// Runs a batch in one transaction on `conn`: the lock of its jobs, then its statement.
async fn record_in(
    conn: &mut PgConnection,
    batch: &Batch<'_>,
) -> std::result::Result<Option<PgRow>, sqlx::Error> {
    let mut jobs: Vec<&str> = batch.jobs.iter().chain(&batch.missed_jobs).copied().collect();
    jobs.sort_unstable();
    jobs.dedup();
    let lock = if batch.missed_jobs.is_empty() {
        EXECUTION_RECORD_LOCK_FIRES
    } else {
        EXECUTION_RECORD_LOCK_MISSED
    };
    let mut tx = conn.begin().await?;
    sqlx::query(lock).bind(&jobs).execute(&mut *tx).await?;
    let answer = sqlx::query(EXECUTION_RECORD_FIRES)
        .bind(&batch.jobs)
        .bind(&batch.instants)
        .bind(&batch.due)
        .bind(&batch.keys)
        .bind(&batch.missed_jobs)
        .bind(&batch.firsts)
        .bind(&batch.lasts)
        .bind(&batch.counts)
        .bind(&batch.reasons)
        .bind(&batch.missed_keys)
        .fetch_optional(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(answer)
}

/// Runs a trigger in one transaction on `conn`: lock the job row (so that triggers of one job
/// decide one after another), read the fire's latest attempt, then record the next one. The
/// outer error is the connection's, the inner one the answer's; dropping the transaction on an
/// inner error rolls it back.
async fn trigger_in(
    conn: &mut PgConnection,
    params: &TriggerParams,
) -> std::result::Result<Result<TriggerOutcome>, sqlx::Error> {
    let job = params.job.as_str();
    let mut tx = conn.begin().await?;
    let Some(locked) =
        sqlx::query(EXECUTION_TRIGGER_LOCK).bind(job).fetch_optional(&mut *tx).await?
    else {
        return Ok(Err(not_registered(&params.job)));
    };
    let now = match row::now(&locked) {
        Ok(now) => now,
        Err(err) => return Ok(Err(err)),
    };
    let scheduled_at = params.scheduled_at.unwrap_or(now);
    let key = params.fire_key.clone().unwrap_or_else(|| FireKey::at(scheduled_at));
    let latest = latest_attempt(&mut tx, job, &key).await?;
    let latest = match latest {
        Ok(latest) => latest,
        Err(err) => return Ok(Err(err)),
    };
    let (attempt, scheduled_at) = match &latest {
        None => (1, scheduled_at),
        Some(latest) if needs_no_attempt(latest) => {
            tx.commit().await?;
            return Ok(Ok(TriggerOutcome::Existing(latest.clone())));
        }
        // Attempts of one fire share its scheduled instant.
        Some(latest) => (latest.attempt.saturating_add(1), latest.scheduled_at),
    };
    let inserted = sqlx::query(EXECUTION_TRIGGER_INSERT)
        .bind(job)
        .bind(key.as_str())
        .bind(scheduled_at.as_millis())
        .bind(i64::from(attempt))
        .bind(params.trigger.as_str())
        .bind(params.claim_for.as_ref().map(|node| node.as_str()))
        .fetch_optional(&mut *tx)
        .await?;
    let outcome = match inserted {
        Some(inserted) => row::execution(&inserted).map(TriggerOutcome::Recorded),
        // A scheduler leader recorded the same fire meanwhile: answer its record.
        None => match latest_attempt(&mut tx, job, &key).await? {
            Ok(Some(latest)) => Ok(TriggerOutcome::Existing(latest)),
            Ok(None) => Err(internal(format!("fire {key} of job {job} vanished while locked"))),
            Err(err) => Err(err),
        },
    };
    if outcome.is_ok() {
        tx.commit().await?;
    }
    Ok(outcome)
}

async fn latest_attempt(
    conn: &mut PgConnection,
    job: &str,
    key: &FireKey,
) -> std::result::Result<Result<Option<Execution>>, sqlx::Error> {
    let found = sqlx::query(EXECUTION_LATEST_ATTEMPT)
        .bind(job)
        .bind(key.as_str())
        .fetch_optional(&mut *conn)
        .await?;
    Ok(found.as_ref().map(row::execution).transpose())
}

/// Whether a fire whose latest attempt is `latest` is answered as it is: it succeeded, or is
/// still scheduled or running.
fn needs_no_attempt(latest: &Execution) -> bool {
    matches!(
        latest.status,
        ExecutionStatus::Succeeded | ExecutionStatus::Scheduled | ExecutionStatus::Running
    )
}
