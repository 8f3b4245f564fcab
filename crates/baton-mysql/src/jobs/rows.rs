//! Conversions between `baton_jobs` / `baton_executions` rows and the core records.

use std::time::Duration;

use baton_core::schedule::{MisfirePolicy, OverlapPolicy, Retention, RetryPolicy, ScheduleKind};
use baton_core::{
    Execution, ExecutionStatus, FencingToken, FireKey, HolderId, Job, JobDefinition, JobName,
    JobPolicy, Result, Schedule, StoreTime, Trigger,
};
use sqlx::MySql;
use sqlx::mysql::MySqlArguments;
use sqlx::query::Query;

use crate::row::{corrupt, millis};

/// A `baton_jobs` row as stored.
#[derive(Debug, sqlx::FromRow)]
pub(super) struct JobRow {
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
    /// The job this row holds.
    pub(super) fn into_job(self) -> Result<Job> {
        let name = job_name(&self.name)?;
        let kind: ScheduleKind = self
            .schedule_kind
            .parse()
            .map_err(|_| corrupt("schedule kind", &self.schedule_kind))?;
        let schedule =
            Schedule::from_parts(kind, &self.schedule_expr, self.schedule_zone.as_deref())
                .map_err(|err| corrupt(&format!("schedule of job {name}"), &err.to_string()))?;
        let overlap: OverlapPolicy =
            self.overlap.parse().map_err(|_| corrupt("overlap policy", &self.overlap))?;
        let misfire: MisfirePolicy =
            self.misfire.parse().map_err(|_| corrupt("misfire policy", &self.misfire))?;
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
            .with_overlap(overlap)
            .with_misfire(misfire)
            .with_misfire_threshold(duration("misfire_threshold_ms", self.misfire_threshold_ms)?)
            .with_catch_up_window(duration("catch_up_window_ms", self.catch_up_window_ms)?)
            .with_catch_up_max(count("catch_up_max", self.catch_up_max)?)
            .with_starting_deadline(
                self.starting_deadline_ms
                    .map(|ms| duration("starting_deadline_ms", ms))
                    .transpose()?,
            )
            .with_jitter(duration("jitter_ms", self.jitter_ms)?)
            .with_timeout(self.timeout_ms.map(|ms| duration("timeout_ms", ms)).transpose()?)
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

/// Binds a definition to the first eighteen parameters of `job_upsert.sql`, in column order.
pub(super) fn bind_definition<'q>(
    query: Query<'q, MySql, MySqlArguments>,
    definition: &'q JobDefinition,
) -> Query<'q, MySql, MySqlArguments> {
    let policy = &definition.policy;
    query
        .bind(definition.name.as_str())
        .bind(definition.schedule.kind().as_str())
        .bind(definition.schedule.expression())
        .bind(definition.schedule.zone())
        .bind(policy.overlap.as_str())
        .bind(policy.misfire.as_str())
        .bind(millis(policy.misfire_threshold))
        .bind(millis(policy.catch_up_window))
        .bind(i64::from(policy.catch_up_max))
        .bind(policy.starting_deadline.map(millis))
        .bind(millis(policy.jitter))
        .bind(policy.timeout.map(millis))
        .bind(i64::from(policy.retry.max_attempts))
        .bind(millis(policy.retry.initial_backoff))
        .bind(millis(policy.retry.max_backoff))
        .bind(i64::from(policy.retention.keep_succeeded))
        .bind(i64::from(policy.retention.keep_failed))
        .bind(millis(policy.retention.max_age))
}

/// A `baton_executions` row as stored.
#[derive(Debug, sqlx::FromRow)]
pub(super) struct ExecutionRow {
    id: i64,
    job: String,
    fire_key: String,
    scheduled_at: i64,
    attempt: i32,
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
    /// The execution this row holds.
    pub(super) fn into_execution(self) -> Result<Execution> {
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
            trigger: self
                .trigger
                .parse::<Trigger>()
                .map_err(|_| corrupt("trigger", &self.trigger))?,
            status: self
                .status
                .parse::<ExecutionStatus>()
                .map_err(|_| corrupt("execution status", &self.status))?,
            due_at: StoreTime::from_millis(self.due_at),
            node: self
                .node
                .map(|node| HolderId::new(&node).map_err(|_| corrupt("node", &node)))
                .transpose()?,
            token: self.token.map(FencingToken::from_store).transpose()?,
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
pub(super) fn executions(rows: Vec<ExecutionRow>) -> Result<Vec<Execution>> {
    rows.into_iter().map(ExecutionRow::into_execution).collect()
}

/// Decodes a job name read back from the store.
pub(super) fn job_name(name: &str) -> Result<JobName> {
    JobName::new(name).map_err(|_| corrupt("job name", name))
}

fn duration(column: &str, ms: i64) -> Result<Duration> {
    u64::try_from(ms).map(Duration::from_millis).map_err(|_| corrupt(column, &ms.to_string()))
}

fn count(column: &str, value: i64) -> Result<u32> {
    u32::try_from(value).map_err(|_| corrupt(column, &value.to_string()))
}
