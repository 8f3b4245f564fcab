//! The in-memory `JobStore`.

use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;

use super::jobs_fires::Written;
use super::jobs_state::Records;
use super::wakeups::Wakeups;
use crate::error::Result;
use crate::job::{
    ClaimParams, Claimed, CompleteParams, Completed, DueChanges, Execution, ExecutionListParams,
    FiresRecorded, HeartbeatOutcome, HeartbeatParams, Job, JobDefinition, JobListParams, JobStore,
    PruneParams, RecordFiresParams, RescueParams, Rescued, TriggerOutcome, TriggerParams,
};
use crate::page::Page;
use crate::schedule::JobName;
use crate::time::{Clock, StoreTime, SystemClock};

/// Jobs and executions kept in this process's memory, timed by an injected clock: the
/// reference semantics of [`JobStore`], which every backend's conformance run checks.
///
/// - **Ids.** Jobs are numbered 1, 2, 3, … in registration order and executions in insertion
///   order. Re-registering a job replaces its definition and keeps its id, its controls
///   (`paused`, `skip_through`) and `created_at`.
/// - **Identity.** At most one record exists per `(job, fire key, attempt)`. A fire's key is
///   [`FireKey::at`](crate::job::FireKey::at) its scheduled instant; every attempt of a fire
///   shares its key and its scheduled instant.
/// - **Recording fires.** A fire of a paused job is recorded `skipped` (`job is paused`), one
///   at or before the job's `skip_through` `skipped` (`skip-next`), any other `scheduled`. A
///   missed run is one `missed` record at its first fire, covering through its last. A fire
///   at an instant a missed run covers is not recorded, nor a missed run one of whose instants
///   a schedule record already holds. A batch naming an unregistered job fails with `NotFound`
///   and records nothing.
/// - **Triggers.** A fire never recorded gets attempt 1; one whose latest attempt succeeded or
///   is still scheduled or running is answered as it is; any other gets the next attempt.
/// - **Tokens.** One counter for the whole store, issued at every claim and never reused.
/// - **Claims.** Due executions (`scheduled`, `due_at <= now`) are decided in `(due_at, id)`
///   order by [`claim_decision`](crate::job::rules::claim_decision), each decision seeing
///   the effects of the earlier ones, until `limit` executions run. Executions that wait or
///   are settled do not count against the limit, so a waiting fire never starves other jobs.
///   A completion or rescue that ends an execution of a job (not `allow`) with a due
///   execution still scheduled wakes the due feeds, as that execution may have waited on it.
/// - **Rescue.** A running execution whose last heartbeat is strictly more than `stale_after`
///   old is abandoned, oldest heartbeat first; a retry follows as after a failed attempt.
/// - **Retention.** [`prune`](JobStore::prune) ranks a job's final executions newest first by
///   id: succeeded ones beyond `keep_succeeded` and others beyond `keep_failed` go, and so does
///   any finished more than `max_age` ago. The record with the greatest scheduled instant and
///   the record [`job_last_fires`](JobStore::job_last_fires) reads are always kept, and live
///   executions are never deleted. The job's pruned watermark rises to the greatest instant
///   (through the last of a missed run) of the deleted schedule, retry and external records.
///
/// Everything sits behind one mutex, so this coordinates tasks of one process, not processes.
pub struct MemoryJobStore {
    clock: Arc<dyn Clock>,
    records: Mutex<Records>,
    due: Arc<Wakeups>,
}

impl Default for MemoryJobStore {
    fn default() -> Self {
        MemoryJobStore::new()
    }
}

impl MemoryJobStore {
    /// An empty store timed by the host's clock.
    pub fn new() -> Self {
        MemoryJobStore::with_clock(Arc::new(SystemClock))
    }

    /// An empty store timed by `clock`.
    pub fn with_clock(clock: Arc<dyn Clock>) -> Self {
        MemoryJobStore { clock, records: Mutex::default(), due: Arc::default() }
    }

    fn lock(&self) -> MutexGuard<'_, Records> {
        self.records.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Wakes the due feeds when a write made something newly scheduled.
    fn announce<T>(&self, written: Written<T>) -> T {
        if written.scheduled {
            self.due.raise();
        }
        written.outcome
    }
}

#[async_trait]
impl JobStore for MemoryJobStore {
    async fn job_upsert(&self, definition: JobDefinition) -> Result<Job> {
        definition.policy.validate()?;
        Ok(self.lock().upsert_job(definition, self.clock.now()))
    }

    async fn job_get(&self, name: &JobName) -> Result<Option<Job>> {
        Ok(self.lock().job(name).cloned())
    }

    async fn job_list(&self, params: JobListParams) -> Result<Page<Job>> {
        self.lock().job_list(params)
    }

    async fn job_set_paused(&self, name: &JobName, paused: bool) -> Result<Job> {
        self.lock().update_job(name, self.clock.now(), |job| job.paused = paused)
    }

    async fn job_skip_through(&self, name: &JobName, through: StoreTime) -> Result<Job> {
        self.lock().update_job(name, self.clock.now(), |job| job.skip_through = Some(through))
    }

    async fn job_last_fires(&self) -> Result<Vec<(JobName, StoreTime)>> {
        Ok(self.lock().job_last_fires())
    }

    async fn job_pruned_through(&self) -> Result<Vec<(JobName, StoreTime)>> {
        Ok(self.lock().job_pruned_through())
    }

    async fn record_fires(&self, params: RecordFiresParams) -> Result<FiresRecorded> {
        let written = self.lock().record_fires(params, self.clock.now())?;
        Ok(self.announce(written))
    }

    async fn trigger(&self, params: TriggerParams) -> Result<TriggerOutcome> {
        let written = self.lock().trigger(params, self.clock.now())?;
        Ok(self.announce(written))
    }

    async fn claim(&self, params: ClaimParams) -> Result<Claimed> {
        self.lock().claim(params, self.clock.now())
    }

    async fn heartbeat(&self, params: HeartbeatParams) -> Result<HeartbeatOutcome> {
        Ok(self.lock().heartbeat(params, self.clock.now()))
    }

    async fn complete(&self, params: CompleteParams) -> Result<Completed> {
        let written = self.lock().complete(params, self.clock.now())?;
        Ok(self.announce(written))
    }

    async fn request_cancel(&self, id: i64) -> Result<bool> {
        Ok(self.lock().request_cancel(id, self.clock.now()))
    }

    async fn rescue(&self, params: RescueParams) -> Result<Rescued> {
        let written = self.lock().rescue(params, self.clock.now());
        Ok(self.announce(written))
    }

    async fn execution_get(&self, id: i64) -> Result<Option<Execution>> {
        Ok(self.lock().executions.get(&id).cloned())
    }

    async fn execution_output(&self, id: i64) -> Result<Option<String>> {
        Ok(self.lock().outputs.get(&id).cloned())
    }

    async fn execution_list(&self, params: ExecutionListParams) -> Result<Page<Execution>> {
        self.lock().execution_list(params)
    }

    async fn prune(&self, params: PruneParams) -> Result<u64> {
        Ok(self.lock().prune(params, self.clock.now()))
    }

    async fn subscribe_due(&self) -> Result<Option<Box<dyn DueChanges>>> {
        Ok(Some(Box::new(self.due.subscribe())))
    }

    async fn now(&self) -> Result<StoreTime> {
        Ok(self.clock.now())
    }
}
