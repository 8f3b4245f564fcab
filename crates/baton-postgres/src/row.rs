//! Decoding rows: leases, leader changes, jobs and executions.

use std::time::Duration;

use baton_core::{
    ChangeReason, Error, ErrorKind, Execution, ExecutionStatus, FencingToken, FireKey, HolderId,
    Job, JobDefinition, JobName, JobPolicy, LeaderChange, Lease, LeaseName, ReleaseKind, Result,
    Retention, RetryPolicy, Schedule, ScheduleKind, StoreTime, Trigger,
};
use sqlx::Row;
use sqlx::postgres::PgRow;

fn column<'r, T>(row: &'r PgRow, name: &str) -> Result<T>
where
    T: sqlx::Decode<'r, sqlx::Postgres> + sqlx::Type<sqlx::Postgres>,
{
    row.try_get(name).map_err(|err| {
        Error::new(ErrorKind::Internal, format!("reading column {name} from PostgreSQL: {err}"))
    })
}

fn corrupt(what: &str, value: &str) -> Error {
    Error::new(ErrorKind::Internal, format!("unexpected {what} {value:?} stored in PostgreSQL"))
}

/// A lease from a row with the columns of `baton_leases`.
pub(crate) fn lease(row: &PgRow) -> Result<Lease> {
    let name: String = column(row, "name")?;
    let holder: Option<String> = column(row, "holder")?;
    let released: Option<String> = column(row, "released")?;
    let ttl_ms: i64 = column(row, "ttl_ms")?;
    Ok(Lease {
        name: LeaseName::new(&name).map_err(|_| corrupt("lease name", &name))?,
        holder: holder
            .map(|holder| HolderId::new(&holder).map_err(|_| corrupt("holder id", &holder)))
            .transpose()?,
        token: FencingToken::from_store(column(row, "token")?)?,
        acquired_at: StoreTime::from_millis(column(row, "acquired_at")?),
        renewed_at: StoreTime::from_millis(column(row, "renewed_at")?),
        expires_at: StoreTime::from_millis(column(row, "expires_at")?),
        ttl: Duration::from_millis(
            u64::try_from(ttl_ms).map_err(|_| corrupt("TTL", &ttl_ms.to_string()))?,
        ),
        released: released
            .map(|kind| ReleaseKind::parse(&kind).ok_or_else(|| corrupt("release kind", &kind)))
            .transpose()?,
    })
}

/// The reason stored with the latest acquisition of a lease row.
pub(crate) fn acquire_reason(row: &PgRow) -> Result<ChangeReason> {
    reason(column(row, "acquire_reason")?)
}

/// The `now_ms` column: the server's time when the statement ran.
pub(crate) fn now(row: &PgRow) -> Result<StoreTime> {
    column(row, "now_ms").map(StoreTime::from_millis)
}

/// The `granted` column of an acquisition's answer.
pub(crate) fn granted(row: &PgRow) -> Result<bool> {
    column(row, "granted")
}

/// A record of `baton_leader_changes`.
pub(crate) fn leader_change(row: &PgRow) -> Result<LeaderChange> {
    let lease: String = column(row, "lease")?;
    let holder: String = column(row, "holder")?;
    Ok(LeaderChange {
        id: column(row, "id")?,
        lease: LeaseName::new(&lease).map_err(|_| corrupt("lease name", &lease))?,
        holder: HolderId::new(&holder).map_err(|_| corrupt("holder id", &holder))?,
        token: FencingToken::from_store(column(row, "token")?)?,
        at: StoreTime::from_millis(column(row, "changed_at")?),
        reason: reason(column(row, "reason")?)?,
        previous_end: column::<Option<i64>>(row, "previous_end")?.map(StoreTime::from_millis),
    })
}

fn reason(text: String) -> Result<ChangeReason> {
    ChangeReason::parse(&text).ok_or_else(|| corrupt("change reason", &text))
}

/// A job from a row with the columns of `baton_jobs`.
pub(crate) fn job(row: &PgRow) -> Result<Job> {
    let name: String = column(row, "name")?;
    let kind: String = column(row, "schedule_kind")?;
    let expression: String = column(row, "schedule_expr")?;
    let zone: Option<String> = column(row, "schedule_zone")?;
    let kind: ScheduleKind = parsed("schedule kind", kind)?;
    let schedule = Schedule::from_parts(kind, &expression, zone.as_deref())
        .map_err(|_| corrupt("schedule", &expression))?;
    let retry = RetryPolicy::default()
        .with_max_attempts(count(row, "retry_max_attempts")?)
        .with_backoff(duration(row, "retry_initial_ms")?, duration(row, "retry_max_ms")?);
    let retention = Retention::default()
        .with_counts(count(row, "keep_succeeded")?, count(row, "keep_failed")?)
        .with_max_age(duration(row, "max_age_ms")?);
    let policy = JobPolicy::default()
        .with_overlap(parsed("overlap policy", column(row, "overlap")?)?)
        .with_misfire(parsed("misfire policy", column(row, "misfire")?)?)
        .with_misfire_threshold(duration(row, "misfire_threshold_ms")?)
        .with_catch_up_window(duration(row, "catch_up_window_ms")?)
        .with_catch_up_max(count(row, "catch_up_max")?)
        .with_starting_deadline(optional_duration(row, "starting_deadline_ms")?)
        .with_jitter(duration(row, "jitter_ms")?)
        .with_timeout(optional_duration(row, "timeout_ms")?)
        .with_retry(retry)
        .with_retention(retention);
    Ok(Job {
        id: column(row, "id")?,
        definition: JobDefinition {
            name: JobName::new(&name).map_err(|_| corrupt("job name", &name))?,
            schedule,
            policy,
        },
        paused: column(row, "paused")?,
        skip_through: instant(row, "skip_through")?,
        created_at: StoreTime::from_millis(column(row, "created_at")?),
        updated_at: StoreTime::from_millis(column(row, "updated_at")?),
    })
}

/// An execution from a row with the columns of `baton_executions`.
pub(crate) fn execution(row: &PgRow) -> Result<Execution> {
    let job: String = column(row, "job")?;
    let node: Option<String> = column(row, "node")?;
    let token: Option<i64> = column(row, "token")?;
    let covers_count: i64 = column(row, "covers_count")?;
    Ok(Execution {
        id: column(row, "id")?,
        job: JobName::new(&job).map_err(|_| corrupt("job name", &job))?,
        fire_key: FireKey::from_store(column(row, "fire_key")?),
        scheduled_at: StoreTime::from_millis(column(row, "scheduled_at")?),
        attempt: count(row, "attempt")?,
        trigger: parsed::<Trigger>("trigger", column(row, "trigger")?)?,
        status: execution_status(row)?,
        due_at: StoreTime::from_millis(column(row, "due_at")?),
        node: node
            .map(|node| HolderId::new(&node).map_err(|_| corrupt("holder id", &node)))
            .transpose()?,
        token: token.map(FencingToken::from_store).transpose()?,
        created_at: StoreTime::from_millis(column(row, "created_at")?),
        started_at: instant(row, "started_at")?,
        heartbeat_at: instant(row, "heartbeat_at")?,
        finished_at: instant(row, "finished_at")?,
        detail: column(row, "detail")?,
        covers_through: instant(row, "covers_through")?,
        covers_count: u64::try_from(covers_count)
            .map_err(|_| corrupt("fire count", &covers_count.to_string()))?,
        cancel_requested: column(row, "cancel_requested")?,
    })
}

/// The `status` column of an execution row.
pub(crate) fn execution_status(row: &PgRow) -> Result<ExecutionStatus> {
    parsed("execution status", column(row, "status")?)
}

/// A text column holding a stored name, such as a status or a policy.
pub(crate) fn text(row: &PgRow, name: &str) -> Result<String> {
    column(row, name)
}

/// An optional text column.
pub(crate) fn optional_text(row: &PgRow, name: &str) -> Result<Option<String>> {
    column(row, name)
}

/// An instant column.
pub(crate) fn required_instant(row: &PgRow, name: &str) -> Result<StoreTime> {
    column::<i64>(row, name).map(StoreTime::from_millis)
}

/// An optional instant column.
pub(crate) fn instant(row: &PgRow, name: &str) -> Result<Option<StoreTime>> {
    column::<Option<i64>>(row, name).map(|ms| ms.map(StoreTime::from_millis))
}

/// A count column (`BIGINT`), which must fit in a `u64`.
pub(crate) fn total(row: &PgRow, name: &str) -> Result<u64> {
    let value: i64 = column(row, name)?;
    u64::try_from(value).map_err(|_| corrupt(name, &value.to_string()))
}

/// A bool column.
pub(crate) fn flag(row: &PgRow, name: &str) -> Result<bool> {
    column(row, name)
}

/// An id column.
pub(crate) fn id(row: &PgRow, name: &str) -> Result<i64> {
    column(row, name)
}

/// An id column of an outer join, `None` where nothing joined.
pub(crate) fn joined_id(row: &PgRow, name: &str) -> Result<Option<i64>> {
    column(row, name)
}

/// A text-array column.
pub(crate) fn texts(row: &PgRow, name: &str) -> Result<Vec<String>> {
    column(row, name)
}

fn parsed<T: std::str::FromStr>(what: &str, text: String) -> Result<T> {
    text.parse().map_err(|_| corrupt(what, &text))
}

fn count(row: &PgRow, name: &str) -> Result<u32> {
    let value: i64 = column(row, name)?;
    u32::try_from(value).map_err(|_| corrupt(name, &value.to_string()))
}

fn duration(row: &PgRow, name: &str) -> Result<Duration> {
    let value: i64 = column(row, name)?;
    u64::try_from(value).map(Duration::from_millis).map_err(|_| corrupt(name, &value.to_string()))
}

fn optional_duration(row: &PgRow, name: &str) -> Result<Option<Duration>> {
    let value: Option<i64> = column(row, name)?;
    value
        .map(|ms| u64::try_from(ms).map(Duration::from_millis))
        .transpose()
        .map_err(|_| corrupt(name, &format!("{value:?}")))
}
