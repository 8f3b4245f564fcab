//! Job definitions and controls: register, read, list, pause, skip-next, where each job's
//! fires stopped, and how far retention pruned them.

use baton_core::job::JobListParams;
use baton_core::page::check_page_size;
use baton_core::{Cursor, Job, JobDefinition, JobName, Page, Result, StoreTime};

use super::{PostgresJobStore, internal, millis, not_registered};
use sqlx::postgres::PgRow;

use crate::queries::{
    JOB_GET, JOB_LAST_FIRES, JOB_LIST, JOB_PRUNED_THROUGH, JOB_SET_PAUSED, JOB_SKIP_THROUGH,
    JOB_UPSERT,
};
use crate::row;

impl PostgresJobStore {
    pub(super) async fn upsert_job(&self, definition: JobDefinition) -> Result<Job> {
        definition.policy.validate()?;
        let name = &definition.name;
        let schedule = &definition.schedule;
        let policy = &definition.policy;
        let query = sqlx::query(JOB_UPSERT)
            .bind(name.as_str())
            .bind(schedule.kind().as_str())
            .bind(schedule.expression())
            .bind(schedule.zone())
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
            .bind(millis(policy.retention.max_age));
        let stored = self
            .connections
            .fetch_optional(query, || format!("registering job {name}"))
            .await?
            .ok_or_else(|| internal(format!("registering job {name} answered no row")))?;
        row::job(&stored)
    }

    pub(super) async fn get_job(&self, name: &JobName) -> Result<Option<Job>> {
        let found = self
            .connections
            .fetch_optional(sqlx::query(JOB_GET).bind(name.as_str()), || {
                format!("reading job {name}")
            })
            .await?;
        found.as_ref().map(row::job).transpose()
    }

    pub(super) async fn list_jobs(&self, params: JobListParams) -> Result<Page<Job>> {
        let limit = check_page_size(params.limit)?;
        let after = params.after.map_or(0, Cursor::last_id);
        let rows = self
            .connections
            .fetch_all(
                sqlx::query(JOB_LIST)
                    .bind(after)
                    .bind(i64::from(limit) + 1)
                    .bind(params.updated_since.map_or(i64::MIN, StoreTime::as_millis)),
                || "listing jobs".to_string(),
            )
            .await?;
        let jobs = rows.iter().map(row::job).collect::<Result<Vec<_>>>()?;
        Ok(Page::from_fetched(jobs, limit, |job| job.id))
    }

    pub(super) async fn set_paused(&self, name: &JobName, paused: bool) -> Result<Job> {
        let action = if paused { "pausing" } else { "resuming" };
        let query = sqlx::query(JOB_SET_PAUSED).bind(name.as_str()).bind(paused);
        let updated =
            self.connections.fetch_optional(query, || format!("{action} job {name}")).await?;
        updated.as_ref().map(row::job).transpose()?.ok_or_else(|| not_registered(name))
    }

    pub(super) async fn skip_through(&self, name: &JobName, through: StoreTime) -> Result<Job> {
        let query = sqlx::query(JOB_SKIP_THROUGH).bind(name.as_str()).bind(through.as_millis());
        let updated = self
            .connections
            .fetch_optional(query, || format!("skipping the fires of job {name} through {through}"))
            .await?;
        updated.as_ref().map(row::job).transpose()?.ok_or_else(|| not_registered(name))
    }

    pub(super) async fn last_fires(&self) -> Result<Vec<(JobName, StoreTime)>> {
        let rows = self
            .connections
            .fetch_all(sqlx::query(JOB_LAST_FIRES), || {
                "reading the last fire of every job".to_string()
            })
            .await?;
        named_instants(&rows, "last_fire")
    }

    pub(super) async fn pruned_through(&self) -> Result<Vec<(JobName, StoreTime)>> {
        let rows = self
            .connections
            .fetch_all(sqlx::query(JOB_PRUNED_THROUGH), || {
                "reading how far retention pruned each job".to_string()
            })
            .await?;
        named_instants(&rows, "through")
    }
}

/// Rows of a job's name (`job`) and an instant (`column`).
fn named_instants(rows: &[PgRow], column: &str) -> Result<Vec<(JobName, StoreTime)>> {
    rows.iter()
        .map(|found| {
            let name = row::text(found, "job")?;
            let name = JobName::new(&name).map_err(|_| {
                internal(format!("unexpected job name {name:?} stored in PostgreSQL"))
            })?;
            let at = row::instant(found, column)?
                .ok_or_else(|| internal(format!("job {name} has no {column}")))?;
            Ok((name, at))
        })
        .collect()
}
