//! The MySQL `JobStore`: job definitions, fires and executions in `baton_jobs` and
//! `baton_executions`, every write one transaction that commits once.
//!
//! Policy decisions are not written twice: a claim locks the due executions and the rows of
//! their jobs that do not allow overlap, decides each execution with
//! [`baton_core::job::rules::claim_decision`] inside the transaction, and writes the decisions
//! back in a few batched statements; retries follow
//! [`baton_core::job::rules::retry_due`]. Batches travel as one JSON array per statement,
//! unpacked with `JSON_TABLE` (MariaDB 10.6+, MySQL 8.0.4+). A transaction the server rolls
//! back to break a deadlock or a lock wait runs again (see `tx`); times are the server's
//! (`SYSDATE(6)`), read inside the transaction.

use std::sync::Arc;

use async_trait::async_trait;
use baton_core::job::{
    ClaimParams, Claimed, CompleteParams, Completed, DueChanges, ExecutionListParams,
    FiresRecorded, HeartbeatOutcome, HeartbeatParams, JobListParams, PruneParams,
    RecordFiresParams, RescueParams, Rescued, TriggerOutcome, TriggerParams,
};
use baton_core::{
    Error, ErrorKind, Execution, Job, JobDefinition, JobName, JobStore, Page, Result, StoreTime,
};
use sqlx::{MySqlConnection, MySqlPool};

use crate::cluster::lists;
use crate::connections::Connections;
use crate::error::query_error;
use crate::lease::server_now;
use crate::queries::{EXECUTION_BY_IDS, EXECUTION_GET, with_list};
use crate::tx::Failure;
use crate::wakeups::Bell;
use rows::ExecutionRow;

mod claim;
mod definitions;
mod finish;
mod fires;
mod history;
mod rows;
mod tokens;

/// Jobs and their executions in a MySQL or MariaDB database, shared by every process that
/// connects to it.
///
/// Execution tokens come from a counter row of their own in `baton_fencing_tokens`, raised by
/// the number of executions a claim starts, so they only grow; the counter is raised on a
/// connection of the lease store's, in a statement of its own. When a write leaves executions
/// due for the workers (fires, run-now, retries, or the end of an execution a due one may wait
/// on), it raises the `due` wake-up count in its transaction and rings the due bell after the
/// commit (see [`subscribe_due`](JobStore::subscribe_due) and the crate's `wakeups`).
///
/// Cheap to clone: clones share the connections. Obtain one from
/// [`MysqlBackend::jobs`](crate::MysqlBackend::jobs).
#[derive(Clone)]
pub struct MysqlJobStore {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for MysqlJobStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MysqlJobStore").finish_non_exhaustive()
    }
}

struct Inner {
    pool: MySqlPool,
    /// Where execution tokens are drawn (see `tokens`).
    tokens: Connections,
    bell: Bell,
}

impl MysqlJobStore {
    pub(crate) fn new(pool: MySqlPool, tokens: Connections, bell: Bell) -> Self {
        MysqlJobStore { inner: Arc::new(Inner { pool, tokens, bell }) }
    }
}

#[async_trait]
impl JobStore for MysqlJobStore {
    async fn job_upsert(&self, definition: JobDefinition) -> Result<Job> {
        definitions::upsert(&self.inner, definition).await
    }

    async fn job_get(&self, name: &JobName) -> Result<Option<Job>> {
        definitions::get(&self.inner.pool, name).await
    }

    async fn job_list(&self, params: JobListParams) -> Result<Page<Job>> {
        definitions::list(&self.inner.pool, params).await
    }

    async fn job_set_paused(&self, name: &JobName, paused: bool) -> Result<Job> {
        definitions::set_paused(&self.inner, name, paused).await
    }

    async fn job_skip_through(&self, name: &JobName, through: StoreTime) -> Result<Job> {
        definitions::skip_through(&self.inner, name, through).await
    }

    async fn job_last_fires(&self) -> Result<Vec<(JobName, StoreTime)>> {
        definitions::last_fires(&self.inner.pool).await
    }

    async fn job_pruned_through(&self) -> Result<Vec<(JobName, StoreTime)>> {
        definitions::pruned_through(&self.inner.pool).await
    }

    async fn record_fires(&self, params: RecordFiresParams) -> Result<FiresRecorded> {
        fires::record(&self.inner, params).await
    }

    async fn trigger(&self, params: TriggerParams) -> Result<TriggerOutcome> {
        fires::trigger(&self.inner, params).await
    }

    async fn claim(&self, params: ClaimParams) -> Result<Claimed> {
        claim::claim(&self.inner, params).await
    }

    async fn heartbeat(&self, params: HeartbeatParams) -> Result<HeartbeatOutcome> {
        finish::heartbeat(&self.inner, params).await
    }

    async fn complete(&self, params: CompleteParams) -> Result<Completed> {
        finish::complete(&self.inner, params).await
    }

    async fn complete_batch(&self, batch: Vec<CompleteParams>) -> Vec<Result<Completed>> {
        finish::complete_batch(&self.inner, batch).await
    }

    async fn request_cancel(&self, id: i64) -> Result<bool> {
        finish::request_cancel(&self.inner, id).await
    }

    async fn rescue(&self, params: RescueParams) -> Result<Rescued> {
        finish::rescue(&self.inner, params).await
    }

    async fn execution_get(&self, id: i64) -> Result<Option<Execution>> {
        history::get(&self.inner.pool, id).await
    }

    async fn execution_output(&self, id: i64) -> Result<Option<String>> {
        history::output(&self.inner.pool, id).await
    }

    async fn execution_list(&self, params: ExecutionListParams) -> Result<Page<Execution>> {
        history::list(&self.inner.pool, params).await
    }

    async fn prune(&self, params: PruneParams) -> Result<u64> {
        history::prune(&self.inner, params).await
    }

    async fn subscribe_due(&self) -> Result<Option<Box<dyn DueChanges>>> {
        let subscription = self.inner.bell.subscribe().await?;
        Ok(Some(Box::new(subscription)))
    }

    async fn now(&self) -> Result<StoreTime> {
        let doing = "reading the MySQL clock";
        let mut conn = self.inner.pool.acquire().await.map_err(|err| query_error(doing, err))?;
        server_now(&mut conn).await.map_err(|err| query_error(doing, err))
    }
}

/// The error for a job that is not registered.
fn not_found(name: &JobName) -> Error {
    baton_core::job::job_not_registered(name)
}

/// Checks a batch size (claim) against the largest page size.
fn check_batch(what: &str, limit: u32) -> Result<u32> {
    let max = baton_core::page::MAX_PAGE_SIZE;
    if limit == 0 || limit > max {
        return Err(Error::invalid_input(format!(
            "invalid {what} limit {limit}: expected 1 to {max}"
        )));
    }
    Ok(limit)
}

/// Reads one execution on `conn`, which must exist (it was just written).
async fn read_execution(
    conn: &mut MySqlConnection,
    id: i64,
) -> std::result::Result<Execution, Failure> {
    let row: Option<ExecutionRow> =
        sqlx::query_as(EXECUTION_GET).bind(id).fetch_optional(conn).await?;
    let row = row.ok_or_else(|| {
        Error::new(
            ErrorKind::Internal,
            format!("MySQL store: execution {id} vanished while written"),
        )
    })?;
    Ok(row.into_execution()?)
}

/// Reads the listed executions on `conn`, in the order of `ids`.
async fn read_executions(
    conn: &mut MySqlConnection,
    ids: &[i64],
) -> std::result::Result<Vec<Execution>, Failure> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let listed = lists::padded(ids);
    let statement = with_list(EXECUTION_BY_IDS, listed.len());
    let mut query = sqlx::query_as(sqlx::AssertSqlSafe(statement));
    for id in listed {
        query = query.bind(id);
    }
    let found: Vec<ExecutionRow> = query.fetch_all(conn).await?;
    let mut found = rows::executions(found)?;
    found.sort_by_key(|execution| ids.iter().position(|id| *id == execution.id));
    Ok(found)
}
