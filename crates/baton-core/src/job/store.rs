//! The `JobStore` trait the SQL backends implement, and its parameter and outcome types.

use std::time::Duration;

use async_trait::async_trait;

use super::{Execution, ExecutionStatus, FireKey, Job, JobDefinition, Trigger};
use crate::error::Result;
use crate::lease::{FencingToken, HolderId};
use crate::page::{Cursor, Page};
use crate::schedule::{JobName, Retention};
use crate::time::StoreTime;

/// A page request over jobs, ordered by id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobListParams {
    /// Start after this cursor; `None` for the first page.
    pub after: Option<Cursor>,
    /// Items per page (1 to 1000).
    pub limit: u32,
    /// Only jobs registered, changed or controlled at or after this instant (store clock), so
    /// that a scheduler leader rereads what changed rather than every job.
    pub updated_since: Option<StoreTime>,
}

impl Default for JobListParams {
    fn default() -> Self {
        JobListParams { after: None, limit: 100, updated_since: None }
    }
}

/// One fire for the scheduler leader to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewFire {
    /// The job.
    pub job: JobName,
    /// The scheduled instant; with the job, the fire's identity.
    pub scheduled_at: StoreTime,
    /// When it may start (the instant plus the job's jitter).
    pub due_at: StoreTime,
}

/// A run of fires that will not run, recorded as one `missed` record that holds every instant
/// from `first` to `last`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissedFires {
    /// The job.
    pub job: JobName,
    /// The first fire of the run; the record's key.
    pub first: StoreTime,
    /// The last fire of the run.
    pub last: StoreTime,
    /// How many fires the run holds.
    pub count: u64,
    /// The policy that decided, and why (`misfire=skip: the scheduler was down`).
    pub reason: String,
}

/// Fires the scheduler leader records at once, in one statement where the store allows.
///
/// Every instant is accounted for by at most one record of the job's schedule, whichever is
/// recorded first: a fire at an instant a missed run on record covers is not recorded, and
/// neither is a missed run one of whose instants a record of the schedule already holds (a
/// fire, or another missed run reaching into it), so that two leaders briefly overlapping
/// never record one instant both as run and as missed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RecordFiresParams {
    /// Fires to run. One of a paused job is recorded as skipped (`paused`); one at or before
    /// the job's `skip_through` as skipped (`skip-next`).
    pub fires: Vec<NewFire>,
    /// Runs of fires recorded as missed.
    pub missed: Vec<MissedFires>,
}

/// What [`JobStore::record_fires`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FiresRecorded {
    /// Records inserted; fires and missed runs whose instants are already accounted for (by
    /// an earlier or a concurrent leader) are left out and not counted.
    pub inserted: u64,
}

/// Record an execution outside the schedule: run-now, or an external trigger under an
/// identity of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TriggerParams {
    /// The job; it must be registered.
    pub job: JobName,
    /// The fire's identity; `None` means "now" on the store's clock.
    pub fire_key: Option<FireKey>,
    /// The instant the fire stands for; `None` means now on the store's clock.
    pub scheduled_at: Option<StoreTime>,
    /// [`Trigger::Manual`] or [`Trigger::External`].
    pub trigger: Trigger,
    /// Claim the execution at once for this node (under a new token) instead of leaving it
    /// due for the workers; what `baton exec --job` does.
    pub claim_for: Option<HolderId>,
}

impl TriggerParams {
    /// Checks that the trigger is [`Trigger::Manual`] or [`Trigger::External`]: schedule
    /// fires and retries are recorded by the scheduler and the store themselves.
    pub fn check(&self) -> Result<()> {
        match self.trigger {
            Trigger::Manual | Trigger::External => Ok(()),
            other => Err(crate::Error::invalid_input(format!(
                "invalid trigger {other} for job {}: expected manual or external",
                self.job
            ))),
        }
    }
}

/// The error every store answers for an operation on a job that is not registered.
pub fn job_not_registered(name: &JobName) -> crate::Error {
    crate::Error::new(crate::ErrorKind::NotFound, format!("job {name} is not registered"))
}

/// The answer to [`TriggerParams`].
///
/// A fire whose latest attempt ended without success (failed, timed out, abandoned,
/// cancelled, skipped, missed) gets a new attempt, so this answers `Recorded`; a fire that
/// succeeded, or whose latest attempt is still scheduled or running, answers `Existing`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TriggerOutcome {
    /// A new execution (or attempt) was recorded, due now, or running when claimed.
    Recorded(Execution),
    /// The fire was already recorded and needs no new attempt; this is its latest attempt.
    Existing(Execution),
}

/// Claim due executions for a worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimParams {
    /// The worker claiming.
    pub node: HolderId,
    /// The most executions to claim at once (1 to 1000).
    pub limit: u32,
    /// Only executions of these jobs (the jobs this worker can run); empty means any job.
    pub jobs: Vec<JobName>,
    /// Also claim executions falling due within this long after the claim, where their start
    /// cannot be refused at their due instant: the job is registered, not paused, does not
    /// skip the fire, and allows overlap or has nothing running or due before it. The worker
    /// holds such an execution and starts it at its due instant; its `started_at` is that
    /// instant. Zero claims only due executions.
    pub ahead: Duration,
}

/// What a claim did, and when the claiming worker should look again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claimed {
    /// Executions now running on the claiming worker, each under a new fencing token.
    pub running: Vec<Execution>,
    /// Due executions the claim settled without running them (overlap `forbid`, starting
    /// deadline passed, job paused), with their final status and reason.
    pub settled: Vec<Execution>,
    /// The store's clock when the claim decided.
    pub now: StoreTime,
    /// The earliest due instant of the claimed jobs' executions still scheduled after the
    /// claim (`None` when none is), so that a worker knows when to claim again without
    /// another call. An instant at or before `now` belongs to an execution waiting on its
    /// job's overlap policy or being judged by another claimer. A store may leave it `None`
    /// when the claim started as many executions as it asked for: the worker then claims
    /// again at once.
    pub next_due: Option<StoreTime>,
}

impl Claimed {
    /// A claim at `now` that has not taken anything yet.
    pub fn at(now: StoreTime) -> Self {
        Claimed { running: Vec::new(), settled: Vec::new(), now, next_due: None }
    }
}

/// A worker's heartbeat for the executions it runs, in one statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeartbeatParams {
    /// The worker.
    pub node: HolderId,
    /// The executions it runs, each with the token of its claim.
    pub executions: Vec<(i64, FencingToken)>,
}

/// The answer to a heartbeat.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HeartbeatOutcome {
    /// Executions no longer running under the worker's token (abandoned and rescued, or
    /// finished): their work must stop, and its writes will be fenced.
    pub lost: Vec<i64>,
    /// Executions asked to stop (cancelled, or replaced by a newer fire).
    pub cancel: Vec<i64>,
}

/// Finish a running execution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompleteParams {
    /// The execution.
    pub id: i64,
    /// The token of the claim; a stale attempt cannot complete.
    pub token: FencingToken,
    /// The final status: succeeded, failed, timed out or cancelled.
    pub status: ExecutionStatus,
    /// The error or reason, if any.
    pub detail: Option<String>,
    /// What the attempt printed or reported, kept with the execution
    /// (read it with [`JobStore::execution_output`]).
    pub output: Option<String>,
}

/// The answer to [`CompleteParams`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completed {
    /// The execution as stored after completion.
    pub execution: Execution,
    /// The next attempt, when the job's retry policy called for one.
    pub retry: Option<Execution>,
}

/// Rescue executions whose worker stopped heartbeating.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RescueParams {
    /// A running execution whose last heartbeat is older than this (store clock) is abandoned.
    pub stale_after: Duration,
    /// The most executions to rescue at once.
    pub limit: u32,
}

/// What a rescue did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Rescued {
    /// Executions marked abandoned.
    pub abandoned: Vec<Execution>,
    /// Retry attempts recorded for them, where the job's retry policy allows.
    pub retries: Vec<Execution>,
    /// The oldest heartbeat of the executions still running after the rescue (`None` when
    /// none is), so that the leader can rescue again exactly when one may go stale.
    pub oldest_heartbeat: Option<StoreTime>,
}

/// A page request over executions, ordered by id, with optional filters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecutionListParams {
    /// Only this job's executions.
    pub job: Option<JobName>,
    /// Only executions in this status.
    pub status: Option<ExecutionStatus>,
    /// Only executions whose scheduled instant is at or after this.
    pub since: Option<StoreTime>,
    /// Only executions whose scheduled instant is before this.
    pub until: Option<StoreTime>,
    /// Start after this cursor; `None` for the first page.
    pub after: Option<Cursor>,
    /// Items per page (1 to 1000).
    pub limit: u32,
}

impl Default for ExecutionListParams {
    fn default() -> Self {
        ExecutionListParams {
            job: None,
            status: None,
            since: None,
            until: None,
            after: None,
            limit: 100,
        }
    }
}

/// Prune one job's finished executions by its retention.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PruneParams {
    /// The job.
    pub job: JobName,
    /// What to keep. The newest record of the job is always kept, so the scheduler can tell
    /// where the job's fires stopped.
    pub retention: Retention,
    /// The most records deleted by one call.
    pub batch: u32,
}

/// A feed of "executions became due" wake-ups, so that workers need not poll tightly.
#[async_trait]
pub trait DueChanges: Send {
    /// Waits for the next wake-up. An error means the feed broke; subscribe again.
    async fn next(&mut self) -> Result<()>;
}

/// A store of jobs and their executions.
///
/// Every implementation passes the job-store conformance suite in `baton-testkit`: a fire is
/// recorded at most once however many leaders record it, and never both as run and as missed
/// (I5); overlap is decided against the record as of the claim; an execution is claimed by at
/// most one worker and each claim issues a fencing token greater than any before (I6); a
/// finished execution never runs again; an execution whose worker stopped heartbeating is
/// abandoned and retried only as its policy allows; every record can be read back with
/// keyset pagination (I8).
#[async_trait]
pub trait JobStore: Send + Sync + 'static {
    /// Registers a job or replaces its definition; its controls and history are kept.
    async fn job_upsert(&self, definition: JobDefinition) -> Result<Job>;

    /// Reads one job.
    async fn job_get(&self, name: &JobName) -> Result<Option<Job>>;

    /// Lists jobs by id.
    async fn job_list(&self, params: JobListParams) -> Result<Page<Job>>;

    /// Pauses or resumes a job; `NotFound` if it is not registered.
    async fn job_set_paused(&self, name: &JobName, paused: bool) -> Result<Job>;

    /// Marks fires up to and including `through` to be skipped; `NotFound` if the job is not
    /// registered.
    async fn job_skip_through(&self, name: &JobName, through: StoreTime) -> Result<Job>;

    /// The latest scheduled instant recorded for every job that has fires, so that a new
    /// scheduler leader continues where the last one stopped.
    async fn job_last_fires(&self) -> Result<Vec<(JobName, StoreTime)>>;

    /// How far retention has deleted each job's record of its schedule: per job, the greatest
    /// instant (a missed run counting through its last) of the schedule, retry and external
    /// executions [`prune`](JobStore::prune) deleted. Only ever rises; a job retention never
    /// pruned is absent. An audit cannot tell a fire at or before it that was never recorded
    /// from one whose record was deleted, and reports such fires as pruned, not missing.
    async fn job_pruned_through(&self) -> Result<Vec<(JobName, StoreTime)>>;

    /// Records fires and missed runs; one whose instants are already accounted for is left
    /// out (see [`RecordFiresParams`]).
    async fn record_fires(&self, params: RecordFiresParams) -> Result<FiresRecorded>;

    /// Records an execution outside the schedule, or answers the one already recorded under
    /// the same identity.
    async fn trigger(&self, params: TriggerParams) -> Result<TriggerOutcome>;

    /// Claims due executions for a worker, applying the overlap policy and the starting
    /// deadline of each job.
    async fn claim(&self, params: ClaimParams) -> Result<Claimed>;

    /// Records a worker's heartbeat for its running executions.
    async fn heartbeat(&self, params: HeartbeatParams) -> Result<HeartbeatOutcome>;

    /// Finishes a running execution (compare-and-set on its token) and records the retry its
    /// policy calls for; `LeaseLost` if the execution no longer runs under that token.
    async fn complete(&self, params: CompleteParams) -> Result<Completed>;

    /// Finishes several running executions; each is judged on its own (a stale one answers
    /// its `LeaseLost` error without affecting the others). Backends that can, do it in one
    /// statement; the default completes them one by one.
    async fn complete_batch(&self, batch: Vec<CompleteParams>) -> Vec<Result<Completed>> {
        let mut results = Vec::with_capacity(batch.len());
        for params in batch {
            results.push(self.complete(params).await);
        }
        results
    }

    /// Asks a running execution to stop; it is marked cancelled when its worker completes it.
    async fn request_cancel(&self, id: i64) -> Result<bool>;

    /// Abandons running executions whose worker stopped heartbeating, and records retries.
    async fn rescue(&self, params: RescueParams) -> Result<Rescued>;

    /// Reads one execution.
    async fn execution_get(&self, id: i64) -> Result<Option<Execution>>;

    /// The output recorded when the execution completed; `None` when it recorded none.
    async fn execution_output(&self, id: i64) -> Result<Option<String>>;

    /// Lists executions by id.
    async fn execution_list(&self, params: ExecutionListParams) -> Result<Page<Execution>>;

    /// Deletes finished executions the job's retention no longer keeps, and raises the job's
    /// [pruned watermark](JobStore::job_pruned_through) over the ones of its schedule in the
    /// same transaction; returns how many were deleted.
    async fn prune(&self, params: PruneParams) -> Result<u64>;

    /// Subscribes to due wake-ups; `None` when the backend cannot notify.
    async fn subscribe_due(&self) -> Result<Option<Box<dyn DueChanges>>>;

    /// The store's current time.
    async fn now(&self) -> Result<StoreTime>;
}
