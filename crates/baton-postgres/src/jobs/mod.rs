//! The PostgreSQL `JobStore`.
//!
//! Jobs live in `baton_jobs`, executions in `baton_executions`; times are milliseconds on the
//! server's clock and execution tokens come from `baton_fencing_tokens`, the sequence leases
//! draw from. Claiming, heartbeating, completing (retry included), cancelling, rescuing and
//! pruning are one statement and one commit each; recording a batch of fires and a trigger are
//! one short transaction each, which first locks the rows of their jobs. Workers are woken
//! through `NOTIFY` on [`DUE_CHANNEL`](crate::DUE_CHANNEL) when something becomes due. The
//! claim is the function `baton_claim_executions`; how it stays race-free, and why it is a
//! function, is explained in `migrations/0009_claim_function.sql`, and how it decides overlap
//! `forbid` in `migrations/0010_claim_forbid_came_due.sql`. Changing the claim therefore takes
//! a new migration that replaces the function.

mod claims;
mod definitions;
mod finish;
mod fires;
mod history;

use std::sync::Arc;

use async_trait::async_trait;
use baton_core::job::row::millis;
use baton_core::job::{
    ClaimParams, Claimed, CompleteParams, Completed, DueChanges, ExecutionListParams,
    FiresRecorded, HeartbeatOutcome, HeartbeatParams, JobListParams, PruneParams,
    RecordFiresParams, RescueParams, Rescued, TriggerOutcome, TriggerParams,
};
use baton_core::{
    Error, ErrorKind, Execution, Job, JobDefinition, JobName, JobStore, Page, Result, StoreTime,
};
use sqlx::postgres::PgConnectOptions;

use crate::connections::Connections;
use crate::wakeups;

/// Jobs and executions stored in PostgreSQL.
///
/// Cheap to clone: clones share the connections. Obtain one from
/// [`PostgresBackend::jobs`](crate::PostgresBackend::jobs).
#[derive(Clone)]
pub struct PostgresJobStore {
    connections: Connections,
    options: Arc<PgConnectOptions>,
}

impl std::fmt::Debug for PostgresJobStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresJobStore").finish_non_exhaustive()
    }
}

impl PostgresJobStore {
    pub(crate) fn new(connections: Connections, options: Arc<PgConnectOptions>) -> Self {
        PostgresJobStore { connections, options }
    }
}

fn not_registered(name: &JobName) -> Error {
    baton_core::job::job_not_registered(name)
}

fn internal(message: String) -> Error {
    Error::new(ErrorKind::Internal, message)
}

#[async_trait]
impl JobStore for PostgresJobStore {
    async fn job_upsert(&self, definition: JobDefinition) -> Result<Job> {
        self.upsert_job(definition).await
    }

    async fn job_get(&self, name: &JobName) -> Result<Option<Job>> {
        self.get_job(name).await
    }

    async fn job_list(&self, params: JobListParams) -> Result<Page<Job>> {
        self.list_jobs(params).await
    }

    async fn job_set_paused(&self, name: &JobName, paused: bool) -> Result<Job> {
        self.set_paused(name, paused).await
    }

    async fn job_skip_through(&self, name: &JobName, through: StoreTime) -> Result<Job> {
        self.skip_through(name, through).await
    }

    async fn job_last_fires(&self) -> Result<Vec<(JobName, StoreTime)>> {
        self.last_fires().await
    }

    async fn job_pruned_through(&self) -> Result<Vec<(JobName, StoreTime)>> {
        self.pruned_through().await
    }

    async fn record_fires(&self, params: RecordFiresParams) -> Result<FiresRecorded> {
        self.record(params).await
    }

    async fn trigger(&self, params: TriggerParams) -> Result<TriggerOutcome> {
        self.record_trigger(params).await
    }

    async fn claim(&self, params: ClaimParams) -> Result<Claimed> {
        self.claim_due(params).await
    }

    async fn heartbeat(&self, params: HeartbeatParams) -> Result<HeartbeatOutcome> {
        self.beat(params).await
    }

    async fn complete(&self, params: CompleteParams) -> Result<Completed> {
        self.finish(params).await
    }

    async fn complete_batch(&self, batch: Vec<CompleteParams>) -> Vec<Result<Completed>> {
        self.finish_batch(batch).await
    }

    async fn request_cancel(&self, id: i64) -> Result<bool> {
        self.cancel(id).await
    }

    async fn rescue(&self, params: RescueParams) -> Result<Rescued> {
        self.rescue_stale(params).await
    }

    async fn execution_get(&self, id: i64) -> Result<Option<Execution>> {
        self.get_execution(id).await
    }

    async fn execution_output(&self, id: i64) -> Result<Option<String>> {
        self.execution_output_of(id).await
    }

    async fn execution_list(&self, params: ExecutionListParams) -> Result<Page<Execution>> {
        self.list_executions(params).await
    }

    async fn prune(&self, params: PruneParams) -> Result<u64> {
        self.prune_job(params).await
    }

    async fn subscribe_due(&self) -> Result<Option<Box<dyn DueChanges>>> {
        wakeups::subscribe_due(&self.options).await.map(Some)
    }

    async fn now(&self) -> Result<StoreTime> {
        self.clock().await
    }
}
