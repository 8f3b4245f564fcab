//! The SQLite `JobStore`: job definitions, fires and executions in `baton_jobs` and
//! `baton_executions`, every write one `BEGIN IMMEDIATE` transaction.
//!
//! Policy decisions are not written twice: a claim reads the due executions and the state of
//! their jobs, decides each with [`baton_core::job::rules::claim_decision`] inside the
//! transaction (SQLite serialises writers, so nothing changes underneath), and writes the
//! decisions back in a handful of batched statements; retries follow
//! [`baton_core::job::rules::retry_due`]. Batches travel as one JSON array per statement,
//! unpacked with `json_each`.

use std::sync::Arc;

use async_trait::async_trait;
use baton_core::job::{
    ClaimParams, Claimed, CompleteParams, Completed, DueChanges, ExecutionListParams,
    FiresRecorded, HeartbeatOutcome, HeartbeatParams, JobListParams, PruneParams,
    RecordFiresParams, RescueParams, Rescued, TriggerOutcome, TriggerParams,
};
use baton_core::time::{Clock, SystemClock};
use baton_core::{Execution, Job, JobDefinition, JobName, JobStore, Page, Result, StoreTime};
use sqlx::SqlitePool;

use crate::notify::{Notifier, WAKE_UP, WakeupSubscription};
use crate::tx::Writer;

mod claim;
mod definitions;
mod finish;
mod fires;
mod history;
mod rows;
mod tokens;

/// Jobs and their executions stored in one SQLite file, shared by every process on the host
/// that opens it.
///
/// Each write is one `BEGIN IMMEDIATE` transaction whose store time is read once the write lock
/// is held, as in [`SqliteLeaseStore`](crate::SqliteLeaseStore). Execution tokens come from the
/// lease store's token counter, so they never collide with lease tokens and only grow. When a
/// write records executions for the workers (fires, run-now, retries), or ends an execution of
/// a job (not `allow`) with a due execution still scheduled, which may have waited on it,
/// every subscriber of [`subscribe_due`](JobStore::subscribe_due) in every process is woken
/// after the commit.
///
/// Cloning is cheap; clones share the connection pools.
#[derive(Debug, Clone)]
pub struct SqliteJobStore {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    write: Writer,
    read: SqlitePool,
    due: Notifier,
    clock: SystemClock,
}

impl Inner {
    /// Store time; inside a write transaction, read once the write lock is held.
    fn now(&self) -> StoreTime {
        self.clock.now()
    }

    /// Wakes the workers of every process: executions were recorded for them.
    fn wake_workers(&self) {
        self.due.send(WAKE_UP);
    }
}

impl SqliteJobStore {
    pub(crate) fn new(write: Writer, read: SqlitePool, due: Notifier) -> Self {
        SqliteJobStore { inner: Arc::new(Inner { write, read, due, clock: SystemClock }) }
    }
}

#[async_trait]
impl JobStore for SqliteJobStore {
    async fn job_upsert(&self, definition: JobDefinition) -> Result<Job> {
        definitions::upsert(&self.inner, definition).await
    }

    async fn job_get(&self, name: &JobName) -> Result<Option<Job>> {
        definitions::get(&self.inner.read, name).await
    }

    async fn job_list(&self, params: JobListParams) -> Result<Page<Job>> {
        definitions::list(&self.inner.read, params).await
    }

    async fn job_set_paused(&self, name: &JobName, paused: bool) -> Result<Job> {
        definitions::set_paused(&self.inner, name, paused).await
    }

    async fn job_skip_through(&self, name: &JobName, through: StoreTime) -> Result<Job> {
        definitions::skip_through(&self.inner, name, through).await
    }

    async fn job_last_fires(&self) -> Result<Vec<(JobName, StoreTime)>> {
        definitions::last_fires(&self.inner.read).await
    }

    async fn job_pruned_through(&self) -> Result<Vec<(JobName, StoreTime)>> {
        definitions::pruned_through(&self.inner.read).await
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
        history::get(&self.inner.read, id).await
    }

    async fn execution_output(&self, id: i64) -> Result<Option<String>> {
        history::output(&self.inner.read, id).await
    }

    async fn execution_list(&self, params: ExecutionListParams) -> Result<Page<Execution>> {
        history::list(&self.inner.read, params).await
    }

    async fn prune(&self, params: PruneParams) -> Result<u64> {
        history::prune(&self.inner, params).await
    }

    async fn subscribe_due(&self) -> Result<Option<Box<dyn DueChanges>>> {
        let subscription = self.inner.due.subscribe()?;
        Ok(Some(Box::new(WakeupSubscription::new(subscription))))
    }

    async fn now(&self) -> Result<StoreTime> {
        Ok(self.inner.now())
    }
}

/// The error for a job that is not registered.
fn not_found(name: &JobName) -> baton_core::Error {
    baton_core::job::job_not_registered(name)
}

/// Checks a batch size (claim, rescue) against the largest page size.
fn check_batch(what: &str, limit: u32) -> Result<u32> {
    let max = baton_core::page::MAX_PAGE_SIZE;
    if limit == 0 || limit > max {
        return Err(baton_core::Error::invalid_input(format!(
            "invalid {what} limit {limit}: expected 1 to {max}"
        )));
    }
    Ok(limit)
}

#[cfg(test)]
mod tests;
