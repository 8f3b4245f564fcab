//! Job definitions and the operator's controls: register, read, list, pause, skip-next, and
//! where each job's fires stopped.

use std::collections::HashMap;

use baton_core::job::JobListParams;
use baton_core::page::check_page_size;
use baton_core::{Cursor, Job, JobDefinition, JobName, Page, Result, StoreTime};
use sqlx::{SqliteConnection, SqlitePool};

use super::rows::{JobRow, bind_definition};
use super::{Inner, not_found};
use crate::error::{corrupt, from_sqlx};
use crate::{json, tx};

/// Registers a job or replaces its definition, keeping its id, controls and `created_at`: one
/// upsert statement.
pub(super) async fn upsert(inner: &Inner, definition: JobDefinition) -> Result<Job> {
    definition.policy.validate()?;
    let doing = format!("registering job {}", definition.name);
    let mut tx = tx::begin(&inner.write, &doing).await?;
    let now = inner.now();
    let query = sqlx::query_as(include_str!("../../queries/job_upsert.sql"));
    let row: JobRow = bind_definition(query, &definition)
        .bind(now.as_millis())
        .fetch_one(&mut *tx)
        .await
        .map_err(|err| from_sqlx(&doing, err))?;
    let job = row.into_job()?;
    tx::commit(tx, &doing).await?;
    Ok(job)
}

/// Reads one job.
pub(super) async fn get(read: &SqlitePool, name: &JobName) -> Result<Option<Job>> {
    let row: Option<JobRow> = sqlx::query_as(include_str!("../../queries/job_get.sql"))
        .bind(name.as_str())
        .fetch_optional(read)
        .await
        .map_err(|err| from_sqlx(&format!("reading job {name}"), err))?;
    row.map(JobRow::into_job).transpose()
}

/// One page of jobs by id: `id > cursor ORDER BY id LIMIT n + 1`, the extra row telling
/// whether another page follows.
pub(super) async fn list(read: &SqlitePool, params: JobListParams) -> Result<Page<Job>> {
    let limit = check_page_size(params.limit)?;
    let rows: Vec<JobRow> = sqlx::query_as(include_str!("../../queries/job_list.sql"))
        .bind(params.after.map_or(0, Cursor::last_id))
        .bind(i64::from(limit) + 1)
        .bind(params.updated_since.map_or(i64::MIN, StoreTime::as_millis))
        .fetch_all(read)
        .await
        .map_err(|err| from_sqlx("listing jobs", err))?;
    let items = rows.into_iter().map(JobRow::into_job).collect::<Result<Vec<_>>>()?;
    Ok(Page::from_fetched(items, limit, |job| job.id))
}

/// Pauses or resumes a job: one update; `NotFound` if it is not registered.
pub(super) async fn set_paused(inner: &Inner, name: &JobName, paused: bool) -> Result<Job> {
    let doing = format!("{} job {name}", if paused { "pausing" } else { "resuming" });
    let query = include_str!("../../queries/job_set_paused.sql");
    update_control(inner, name, &doing, query, i64::from(paused)).await
}

/// Marks fires up to `through` to be skipped: one update; `NotFound` if the job is not
/// registered.
pub(super) async fn skip_through(inner: &Inner, name: &JobName, through: StoreTime) -> Result<Job> {
    let doing = format!("skipping the fires of job {name} through {through}");
    let query = include_str!("../../queries/job_skip_through.sql");
    update_control(inner, name, &doing, query, through.as_millis()).await
}

/// Runs a control update `(name, value, now) RETURNING job` in its own write transaction.
async fn update_control(
    inner: &Inner,
    name: &JobName,
    doing: &str,
    query: &'static str,
    value: i64,
) -> Result<Job> {
    let mut tx = tx::begin(&inner.write, doing).await?;
    let now = inner.now();
    let row: Option<JobRow> = sqlx::query_as(query)
        .bind(name.as_str())
        .bind(value)
        .bind(now.as_millis())
        .fetch_optional(&mut *tx)
        .await
        .map_err(|err| from_sqlx(doing, err))?;
    let Some(row) = row else {
        tx::finish_unchanged(tx).await;
        return Err(not_found(name));
    };
    let job = row.into_job()?;
    tx::commit(tx, doing).await?;
    Ok(job)
}

/// The latest scheduled instant recorded for every job that has fires.
pub(super) async fn last_fires(read: &SqlitePool) -> Result<Vec<(JobName, StoreTime)>> {
    let rows: Vec<(String, i64)> = sqlx::query_as(include_str!("../../queries/job_last_fires.sql"))
        .fetch_all(read)
        .await
        .map_err(|err| from_sqlx("reading the last fire of every job", err))?;
    named_instants(rows)
}

/// How far retention has deleted each job's record of its schedule.
pub(super) async fn pruned_through(read: &SqlitePool) -> Result<Vec<(JobName, StoreTime)>> {
    let rows: Vec<(String, i64)> =
        sqlx::query_as(include_str!("../../queries/job_pruned_through.sql"))
            .fetch_all(read)
            .await
            .map_err(|err| from_sqlx("reading how far retention pruned each job", err))?;
    named_instants(rows)
}

/// Rows of a job's name and an instant, as read.
fn named_instants(rows: Vec<(String, i64)>) -> Result<Vec<(JobName, StoreTime)>> {
    rows.into_iter()
        .map(|(name, at)| {
            let job = JobName::new(&name).map_err(|_| corrupt("job name", &name))?;
            Ok((job, StoreTime::from_millis(at)))
        })
        .collect()
}

/// The registered jobs among `names`, by name, read inside the caller's transaction.
pub(super) async fn named(
    conn: &mut SqliteConnection,
    names: impl IntoIterator<Item = &JobName>,
) -> Result<HashMap<JobName, Job>> {
    let names = json::strings(names.into_iter().map(JobName::as_str));
    let rows: Vec<JobRow> = sqlx::query_as(include_str!("../../queries/job_named.sql"))
        .bind(names)
        .fetch_all(conn)
        .await
        .map_err(|err| from_sqlx("reading job definitions", err))?;
    rows.into_iter().map(|row| row.into_job().map(|job| (job.name().clone(), job))).collect()
}

/// The first of `names` that no registered job has, if any.
pub(super) async fn first_missing(
    conn: &mut SqliteConnection,
    names: &[&JobName],
) -> Result<Option<JobName>> {
    let names = json::strings(names.iter().map(|name| name.as_str()));
    let missing: Option<String> = sqlx::query_scalar(include_str!("../../queries/job_missing.sql"))
        .bind(names)
        .fetch_optional(conn)
        .await
        .map_err(|err| from_sqlx("checking that the jobs are registered", err))?;
    missing.map(|name| JobName::new(&name).map_err(|_| corrupt("job name", &name))).transpose()
}
