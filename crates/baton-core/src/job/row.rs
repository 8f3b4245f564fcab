//! Jobs and executions as the SQL stores keep them: one row type each, with the columns of
//! `baton_jobs` and `baton_executions` in plain integers and text, decoded into the core records
//! by the same rules whichever store read them. With the `sqlx` feature the rows are read with
//! `sqlx::FromRow`, by column name, from any of sqlx's databases.

use std::time::Duration;

use crate::error::{Error, ErrorKind, Result};
use crate::lease::{FencingToken, HolderId};
use crate::schedule::{
    JobPolicy, MisfirePolicy, OverlapPolicy, Retention, RetryPolicy, Schedule, ScheduleKind,
};
use crate::time::StoreTime;
use crate::{Execution, ExecutionStatus, FireKey, Job, JobDefinition, JobName, Trigger};

/// A `baton_jobs` row.
#[derive(Debug)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct JobRow {
    id: i64,
    name: String,
    schedule_kind: String,
    schedule_expr: String,
    schedule_zone: Option<String>,
    overlap: String,
    misfire: String,
    misfire_threshold_ms: i64,
    catch_up_window_ms: i64,
    catch_up_max: i64,
    starting_deadline_ms: Option<i64>,
    jitter_ms: i64,
    timeout_ms: Option<i64>,
    retry_max_attempts: i64,
    retry_initial_ms: i64,
    retry_max_ms: i64,
    keep_succeeded: i64,
    keep_failed: i64,
    max_age_ms: i64,
    paused: bool,
    skip_through: Option<i64>,
    created_at: i64,
    updated_at: i64,
}

impl JobRow {
    /// The job this row holds; a value baton could not have written is an internal error.
    pub fn into_job(self) -> Result<Job> {
        let name = job_name(&self.name)?;
        let kind: ScheduleKind = parsed("schedule kind", &self.schedule_kind)?;
        let schedule =
            Schedule::from_parts(kind, &self.schedule_expr, self.schedule_zone.as_deref())
                .map_err(|err| corrupt(&format!("schedule of job {name}"), &err.to_string()))?;
        let retry = RetryPolicy::default()
            .with_max_attempts(count("retry_max_attempts", self.retry_max_attempts)?)
            .with_backoff(
                duration("retry_initial_ms", self.retry_initial_ms)?,
                duration("retry_max_ms", self.retry_max_ms)?,
            );
        let retention = Retention::default()
            .with_counts(
                count("keep_succeeded", self.keep_succeeded)?,
                count("keep_failed", self.keep_failed)?,
            )
            .with_max_age(duration("max_age_ms", self.max_age_ms)?);
        let policy = JobPolicy::default()
            .with_overlap(parsed::<OverlapPolicy>("overlap policy", &self.overlap)?)
            .with_misfire(parsed::<MisfirePolicy>("misfire policy", &self.misfire)?)
            .with_misfire_threshold(duration("misfire_threshold_ms", self.misfire_threshold_ms)?)
            .with_catch_up_window(duration("catch_up_window_ms", self.catch_up_window_ms)?)
            .with_catch_up_max(count("catch_up_max", self.catch_up_max)?)
            .with_starting_deadline(optional_duration(
                "starting_deadline_ms",
                self.starting_deadline_ms,
            )?)
            .with_jitter(duration("jitter_ms", self.jitter_ms)?)
            .with_timeout(optional_duration("timeout_ms", self.timeout_ms)?)
            .with_retry(retry)
            .with_retention(retention);
        Ok(Job {
            id: self.id,
            definition: JobDefinition { name, schedule, policy },
            paused: self.paused,
            skip_through: self.skip_through.map(StoreTime::from_millis),
            created_at: StoreTime::from_millis(self.created_at),
            updated_at: StoreTime::from_millis(self.updated_at),
        })
    }
}

/// A `baton_executions` row.
#[derive(Debug)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct ExecutionRow {
    id: i64,
    job: String,
    fire_key: String,
    scheduled_at: i64,
    attempt: i64,
    trigger: String,
    status: String,
    due_at: i64,
    node: Option<String>,
    token: Option<i64>,
    created_at: i64,
    started_at: Option<i64>,
    heartbeat_at: Option<i64>,
    finished_at: Option<i64>,
    detail: Option<String>,
    covers_through: Option<i64>,
    covers_count: i64,
    cancel_requested: bool,
}

impl ExecutionRow {
    /// The execution this row holds; a value baton could not have written is an internal error.
    pub fn into_execution(self) -> Result<Execution> {
        let instant = |ms: Option<i64>| ms.map(StoreTime::from_millis);
        Ok(Execution {
            id: self.id,
            job: job_name(&self.job)?,
            fire_key: FireKey::from_store(self.fire_key),
            scheduled_at: StoreTime::from_millis(self.scheduled_at),
            attempt: u32::try_from(self.attempt)
                .ok()
                .filter(|attempt| *attempt >= 1)
                .ok_or_else(|| corrupt("attempt", &self.attempt.to_string()))?,
            trigger: parsed::<Trigger>("trigger", &self.trigger)?,
            status: parsed::<ExecutionStatus>("execution status", &self.status)?,
            due_at: StoreTime::from_millis(self.due_at),
            node: self
                .node
                .map(|node| HolderId::new(&node).map_err(|_| corrupt("node", &node)))
                .transpose()?,
            token: self
                .token
                .map(|token| {
                    FencingToken::from_store(token)
                        .map_err(|_| corrupt("token", &token.to_string()))
                })
                .transpose()?,
            created_at: StoreTime::from_millis(self.created_at),
            started_at: instant(self.started_at),
            heartbeat_at: instant(self.heartbeat_at),
            finished_at: instant(self.finished_at),
            detail: self.detail,
            covers_through: instant(self.covers_through),
            covers_count: u64::try_from(self.covers_count)
                .ok()
                .filter(|count| *count >= 1)
                .ok_or_else(|| corrupt("covers_count", &self.covers_count.to_string()))?,
            cancel_requested: self.cancel_requested,
        })
    }
}

/// Decodes every row, failing on the first unreadable one.
pub fn executions(rows: Vec<ExecutionRow>) -> Result<Vec<Execution>> {
    rows.into_iter().map(ExecutionRow::into_execution).collect()
}

/// A job name read back from a store.
pub fn job_name(name: &str) -> Result<JobName> {
    JobName::new(name).map_err(|_| corrupt("job name", name))
}

/// A duration as the stores keep it, in whole milliseconds (saturating).
pub fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// The error for a value read back that baton could not have written.
pub fn corrupt(what: &str, value: &str) -> Error {
    Error::new(ErrorKind::Internal, format!("unexpected {what} {value:?} read back from the store"))
}

/// A stored name (a status, a policy, a state) parsed back.
pub(crate) fn parsed<T: std::str::FromStr>(what: &str, text: &str) -> Result<T> {
    text.parse().map_err(|_| corrupt(what, text))
}

fn duration(column: &str, ms: i64) -> Result<Duration> {
    u64::try_from(ms).map(Duration::from_millis).map_err(|_| corrupt(column, &ms.to_string()))
}

fn optional_duration(column: &str, ms: Option<i64>) -> Result<Option<Duration>> {
    ms.map(|ms| duration(column, ms)).transpose()
}

fn count(column: &str, value: i64) -> Result<u32> {
    u32::try_from(value).map_err(|_| corrupt(column, &value.to_string()))
}
