//! Job definitions and the operator's controls: register, read, list, pause, skip-next, and
//! where each job's fires stopped.

use std::collections::HashMap;

use baton_core::job::JobListParams;
use baton_core::page::check_page_size;
use baton_core::{Cursor, Job, JobDefinition, JobName, Page, Result, StoreTime};
use sqlx::{MySqlConnection, MySqlPool};

use super::rows::{JobRow, bind_definition, job_name};
use super::{Inner, not_found, server_now};
use crate::error::query_error;
use crate::queries::{
    JOB_GET, JOB_LAST_FIRES, JOB_LIST, JOB_LOCK, JOB_LOCK_SHARED, JOB_NAMED, JOB_PRUNED_THROUGH,
    JOB_SET_PAUSED, JOB_SKIP_THROUGH, JOB_UPSERT, with_list,
};
use crate::tx::{self, Failure};

/// Registers a job or replaces its definition, keeping its id, controls and `created_at`: an
/// upsert and a read back, one commit.
pub(super) async fn upsert(inner: &Inner, definition: JobDefinition) -> Result<Job> {
    definition.policy.validate()?;
    let doing = format!("registering job {}", definition.name);
    tx::transaction!(&inner.pool, &doing, |conn| async {
        let now = server_now(conn).await?;
        bind_definition(sqlx::query(JOB_UPSERT), &definition)
            .bind(now.as_millis())
            .bind(now.as_millis())
            .execute(&mut *conn)
            .await?;
        Ok(read(conn, &definition.name)
            .await?
            .ok_or_else(|| not_found(&definition.name))?
            .into_job()?)
    })
}

/// Reads one job.
pub(super) async fn get(pool: &MySqlPool, name: &JobName) -> Result<Option<Job>> {
    let mut conn =
        pool.acquire().await.map_err(|err| query_error(format!("reading job {name}"), err))?;
    read(&mut conn, name)
        .await
        .map_err(|err| query_error(format!("reading job {name}"), err))?
        .map(JobRow::into_job)
        .transpose()
}

/// Reads one job's row on `conn`.
async fn read(conn: &mut MySqlConnection, name: &JobName) -> sqlx::Result<Option<JobRow>> {
    sqlx::query_as(JOB_GET).bind(name.as_str()).fetch_optional(conn).await
}

/// One page of jobs by id, the extra row telling whether another page follows.
pub(super) async fn list(pool: &MySqlPool, params: JobListParams) -> Result<Page<Job>> {
    let limit = check_page_size(params.limit)?;
    let rows: Vec<JobRow> = sqlx::query_as(JOB_LIST)
        .bind(params.after.map_or(0, Cursor::last_id))
        .bind(params.updated_since.map_or(i64::MIN, StoreTime::as_millis))
        .bind(i64::from(limit) + 1)
        .fetch_all(pool)
        .await
        .map_err(|err| query_error("listing jobs", err))?;
    let items = rows.into_iter().map(JobRow::into_job).collect::<Result<Vec<_>>>()?;
    Ok(Page::from_fetched(items, limit, |job| job.id))
}

/// Pauses or resumes a job; `NotFound` if it is not registered.
pub(super) async fn set_paused(inner: &Inner, name: &JobName, paused: bool) -> Result<Job> {
    let doing = format!("{} job {name}", if paused { "pausing" } else { "resuming" });
    control(inner, name, &doing, JOB_SET_PAUSED, i64::from(paused)).await
}

/// Marks fires up to `through` to be skipped; `NotFound` if the job is not registered.
pub(super) async fn skip_through(inner: &Inner, name: &JobName, through: StoreTime) -> Result<Job> {
    let doing = format!("skipping the fires of job {name} through {through}");
    control(inner, name, &doing, JOB_SKIP_THROUGH, through.as_millis()).await
}

/// Runs a control update `(value, now, name)` and reads the job back, one commit.
async fn control(
    inner: &Inner,
    name: &JobName,
    doing: &str,
    statement: &'static str,
    value: i64,
) -> Result<Job> {
    tx::transaction!(&inner.pool, doing, |conn| async {
        let now = server_now(conn).await?;
        let done = sqlx::query(statement)
            .bind(value)
            .bind(now.as_millis())
            .bind(name.as_str())
            .execute(&mut *conn)
            .await?;
        let found = if done.rows_affected() == 0 { None } else { read(conn, name).await? };
        Ok(found.ok_or_else(|| not_found(name))?.into_job()?)
    })
}

/// The latest scheduled instant recorded for every job that has fires.
pub(super) async fn last_fires(pool: &MySqlPool) -> Result<Vec<(JobName, StoreTime)>> {
    named_instants(pool, JOB_LAST_FIRES, "reading the last fire of every job").await
}

/// How far retention has deleted each job's record of its schedule.
pub(super) async fn pruned_through(pool: &MySqlPool) -> Result<Vec<(JobName, StoreTime)>> {
    named_instants(pool, JOB_PRUNED_THROUGH, "reading how far retention pruned each job").await
}

/// Rows of a job's name and an instant.
async fn named_instants(
    pool: &MySqlPool,
    statement: &'static str,
    doing: &str,
) -> Result<Vec<(JobName, StoreTime)>> {
    let rows: Vec<(String, i64)> =
        sqlx::query_as(statement).fetch_all(pool).await.map_err(|err| query_error(doing, err))?;
    rows.into_iter().map(|(name, at)| Ok((job_name(&name)?, StoreTime::from_millis(at)))).collect()
}

/// How [`named`] locks the rows of the jobs it reads.
#[derive(Debug, Clone, Copy)]
pub(super) enum Lock {
    /// Not at all.
    None,
    /// Shared (`LOCK IN SHARE MODE`), for the rest of the transaction.
    Shared,
    /// Exclusive (`FOR UPDATE`), for the rest of the transaction.
    Exclusive,
}

/// Reads the registered jobs among `names`, by name, locking their rows in name order as
/// `mode` says.
pub(super) async fn named<'n>(
    conn: &mut MySqlConnection,
    names: impl IntoIterator<Item = &'n JobName>,
    mode: Lock,
) -> Result<HashMap<JobName, Job>, Failure> {
    let mut names: Vec<&JobName> = names.into_iter().collect();
    names.sort();
    names.dedup();
    if names.is_empty() {
        return Ok(HashMap::new());
    }
    let statement = match mode {
        Lock::None => JOB_NAMED,
        Lock::Shared => JOB_LOCK_SHARED,
        Lock::Exclusive => JOB_LOCK,
    };
    let statement = with_list(statement, names.len());
    let mut query = sqlx::query_as(sqlx::AssertSqlSafe(statement));
    for name in &names {
        query = query.bind(name.as_str());
    }
    let rows: Vec<JobRow> = query.fetch_all(conn).await?;
    let mut jobs = HashMap::with_capacity(rows.len());
    for row in rows {
        let job = row.into_job()?;
        jobs.insert(job.name().clone(), job);
    }
    Ok(jobs)
}
