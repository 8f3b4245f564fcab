//! Decoding rows: leases, leader changes, jobs and executions.

use std::time::Duration;

use baton_core::job::row::{ExecutionRow, JobRow};
use baton_core::{
    ChangeReason, Error, ErrorKind, Execution, FencingToken, HolderId, Job, LeaderChange, Lease,
    LeaseName, ReleaseKind, Result, StoreTime,
};
use sqlx::postgres::PgRow;
use sqlx::{FromRow, Row};

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
    JobRow::from_row(row).map_err(unreadable)?.into_job()
}

/// An execution from a row with the columns of `baton_executions`.
pub(crate) fn execution(row: &PgRow) -> Result<Execution> {
    ExecutionRow::from_row(row).map_err(unreadable)?.into_execution()
}

/// The error for a row that could not be read into its row type.
pub(crate) fn unreadable(err: sqlx::Error) -> Error {
    Error::new(ErrorKind::Internal, format!("reading a row from PostgreSQL: {err}"))
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
