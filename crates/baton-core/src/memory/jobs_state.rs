//! The records of the in-memory `JobStore`, their indexes, and the helpers every operation
//! shares: the job registry, the execution table with its uniqueness on `(job, fire key,
//! attempt)`, and the store-wide token counter.

use std::collections::{BTreeMap, BTreeSet};

use crate::error::{Error, Result};
use crate::job::{Execution, ExecutionStatus, FireKey, Job, JobDefinition, Trigger};
use crate::lease::{FencingToken, HolderId};
use crate::schedule::JobName;
use crate::time::StoreTime;

/// Everything the store holds, behind the store's one mutex.
#[derive(Default)]
pub(super) struct Records {
    /// Jobs in registration order: the job with id `n` is at index `n - 1`.
    jobs: Vec<Job>,
    job_index: BTreeMap<JobName, usize>,
    /// Executions by id.
    pub(super) executions: BTreeMap<i64, Execution>,
    /// The output recorded with each completed execution that reported one.
    pub(super) outputs: BTreeMap<i64, String>,
    /// The attempts of every fire: `(job, fire key)` → attempt → execution id.
    fires: BTreeMap<(JobName, FireKey), BTreeMap<u32, i64>>,
    /// The ids of every job's executions.
    by_job: BTreeMap<JobName, BTreeSet<i64>>,
    /// The greatest instant of each job's schedule whose record retention deleted.
    pub(super) pruned_through: BTreeMap<JobName, StoreTime>,
    last_execution_id: i64,
    last_token: u64,
}

impl Records {
    /// Registers a job or replaces its definition, keeping its id, controls and creation time.
    pub(super) fn upsert_job(&mut self, definition: JobDefinition, now: StoreTime) -> Job {
        if let Some(job) = self.job_mut(&definition.name) {
            job.definition = definition;
            job.updated_at = now;
            return job.clone();
        }
        let id = i64::try_from(self.jobs.len()).unwrap_or(i64::MAX).saturating_add(1);
        let job = Job {
            id,
            definition,
            paused: false,
            skip_through: None,
            created_at: now,
            updated_at: now,
        };
        self.job_index.insert(job.name().clone(), self.jobs.len());
        self.jobs.push(job.clone());
        job
    }

    /// The job registered under `name`.
    pub(super) fn job(&self, name: &JobName) -> Option<&Job> {
        self.job_index.get(name).map(|index| &self.jobs[*index])
    }

    fn job_mut(&mut self, name: &JobName) -> Option<&mut Job> {
        self.job_index.get(name).map(|index| &mut self.jobs[*index])
    }

    /// Every job, by id.
    pub(super) fn jobs(&self) -> &[Job] {
        &self.jobs
    }

    /// The job registered under `name`, or `NotFound` naming it.
    pub(super) fn require_job(&self, name: &JobName) -> Result<&Job> {
        self.job(name).ok_or_else(|| not_registered(name))
    }

    /// Changes a job's controls and stamps its update time; `NotFound` if it is not registered.
    pub(super) fn update_job(
        &mut self,
        name: &JobName,
        now: StoreTime,
        change: impl FnOnce(&mut Job),
    ) -> Result<Job> {
        let job = self.job_mut(name).ok_or_else(|| not_registered(name))?;
        change(job);
        job.updated_at = now;
        Ok(job.clone())
    }

    /// Issues the next fencing token: one counter for the whole store, never reused.
    pub(super) fn next_token(&mut self) -> Result<FencingToken> {
        let token = FencingToken::new(self.last_token.saturating_add(1))?;
        self.last_token = token.get();
        Ok(token)
    }

    /// The latest attempt of a fire.
    pub(super) fn latest_attempt(&self, job: &JobName, key: &FireKey) -> Option<&Execution> {
        let attempts = self.fires.get(&(job.clone(), key.clone()))?;
        let (_, id) = attempts.last_key_value()?;
        self.executions.get(id)
    }

    /// The executions of one job, by id.
    pub(super) fn job_executions(&self, job: &JobName) -> impl Iterator<Item = &Execution> + '_ {
        let ids = self.by_job.get(job).into_iter().flatten();
        ids.filter_map(|id| self.executions.get(id))
    }

    /// Inserts a draft under the next id, unless its `(job, fire key, attempt)` is already
    /// recorded; returns the stored execution.
    pub(super) fn insert(&mut self, mut draft: Execution) -> Option<Execution> {
        let attempts = self.fires.entry((draft.job.clone(), draft.fire_key.clone())).or_default();
        if attempts.contains_key(&draft.attempt) {
            return None;
        }
        self.last_execution_id += 1;
        draft.id = self.last_execution_id;
        attempts.insert(draft.attempt, draft.id);
        self.by_job.entry(draft.job.clone()).or_default().insert(draft.id);
        self.executions.insert(draft.id, draft.clone());
        Some(draft)
    }

    /// Deletes an execution and its index entries.
    pub(super) fn remove(&mut self, id: i64) {
        let Some(execution) = self.executions.remove(&id) else { return };
        self.outputs.remove(&id);
        let key = (execution.job.clone(), execution.fire_key.clone());
        if let Some(attempts) = self.fires.get_mut(&key) {
            attempts.remove(&execution.attempt);
            if attempts.is_empty() {
                self.fires.remove(&key);
            }
        }
        if let Some(ids) = self.by_job.get_mut(&execution.job) {
            ids.remove(&id);
        }
    }

    /// Records the next attempt of a finished execution when its job's retry policy calls for
    /// one at `now`.
    pub(super) fn record_retry(&mut self, id: i64, now: StoreTime) -> Option<Execution> {
        let finished = self.executions.get(&id)?;
        let job = self.job(&finished.job)?;
        let retry = &job.definition.policy.retry;
        let due_at = crate::job::rules::retry_due(retry, finished.status, finished.attempt, now)?;
        let mut draft = draft(&finished.job, &finished.fire_key, finished.scheduled_at, now);
        draft.attempt = finished.attempt.saturating_add(1);
        draft.trigger = Trigger::Retry;
        draft.due_at = due_at;
        self.insert(draft)
    }
}

/// A scheduled first attempt of a fire, due at its scheduled instant, not yet stored (id 0).
pub(super) fn draft(
    job: &JobName,
    fire_key: &FireKey,
    scheduled_at: StoreTime,
    now: StoreTime,
) -> Execution {
    Execution {
        id: 0,
        job: job.clone(),
        fire_key: fire_key.clone(),
        scheduled_at,
        attempt: 1,
        trigger: Trigger::Schedule,
        status: ExecutionStatus::Scheduled,
        due_at: scheduled_at,
        node: None,
        token: None,
        created_at: now,
        started_at: None,
        heartbeat_at: None,
        finished_at: None,
        detail: None,
        covers_through: None,
        covers_count: 1,
        cancel_requested: false,
    }
}

/// Marks an execution claimed at `now` running on `node` under `token`, from its due instant
/// when it was claimed ahead of it.
pub(super) fn start(
    execution: &mut Execution,
    node: HolderId,
    token: FencingToken,
    now: StoreTime,
) {
    execution.status = ExecutionStatus::Running;
    execution.node = Some(node);
    execution.token = Some(token);
    execution.started_at = Some(now.max(execution.due_at));
    execution.heartbeat_at = Some(now);
}

/// Gives an execution its final status.
pub(super) fn finish(
    execution: &mut Execution,
    status: ExecutionStatus,
    detail: Option<String>,
    now: StoreTime,
) {
    execution.status = status;
    execution.detail = detail;
    execution.finished_at = Some(now);
}

fn not_registered(name: &JobName) -> Error {
    crate::job::job_not_registered(name)
}
