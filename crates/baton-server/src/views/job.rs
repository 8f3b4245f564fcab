//! Jobs, with their next fires and last outcome.

use baton::StoreTime;
use baton::core::{Execution, Job, JobPolicy};
use serde::Serialize;

use super::{ExecutionView, instant, maybe_instant, millis};

/// A registered job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JobView {
    /// The store's id.
    pub id: i64,
    /// The job's name.
    pub name: String,
    /// When it fires, such as `cron "0 3 * * *" in Europe/Paris` or `every 30s`.
    pub schedule: String,
    /// Whether its fires are recorded as skipped instead of running.
    pub paused: bool,
    /// Fires scheduled at or before this instant are skipped (`skip-next`).
    pub skip_through: Option<String>,
    /// Its overlap, misfire, timeout and retry rules.
    pub policy: PolicyView,
    /// The next fires that will run unless the job is paused: after now and after
    /// `skip_through`. Empty when the view was built without reading the store's clock.
    pub next_fires: Vec<String>,
    /// The newest finished execution, when the view was built with it.
    pub last_outcome: Option<ExecutionView>,
    /// When it was first registered.
    pub created_at: String,
    /// When its definition or a control last changed.
    pub updated_at: String,
}

impl JobView {
    /// Adds the next `count` fires after store time `now` (and after the skipped ones).
    pub fn with_next_fires(mut self, job: &Job, now: StoreTime, count: usize) -> Self {
        let from = job.skip_through.map_or(now, |through| through.max(now));
        let schedule = &job.definition.schedule;
        let mut cursor = from;
        self.next_fires = std::iter::from_fn(|| {
            cursor = schedule.next_after(cursor)?;
            Some(instant(cursor))
        })
        .take(count)
        .collect();
        self
    }

    /// Adds the newest finished execution.
    pub fn with_last_outcome(mut self, execution: Option<&Execution>) -> Self {
        self.last_outcome = execution.map(ExecutionView::from);
        self
    }
}

impl From<&Job> for JobView {
    fn from(job: &Job) -> Self {
        JobView {
            id: job.id,
            name: job.name().to_string(),
            schedule: job.definition.schedule.to_string(),
            paused: job.paused,
            skip_through: maybe_instant(job.skip_through),
            policy: PolicyView::from(&job.definition.policy),
            next_fires: Vec::new(),
            last_outcome: None,
            created_at: instant(job.created_at),
            updated_at: instant(job.updated_at),
        }
    }
}

/// The rules that govern a job's executions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PolicyView {
    /// `allow`, `forbid`, `replace` or `buffer-one`.
    pub overlap: &'static str,
    /// What happens to fires found late: `skip`, `run-latest` or `run-all`.
    pub misfire: &'static str,
    /// Lateness beyond which a fire is a misfire, in milliseconds.
    pub misfire_threshold_ms: u64,
    /// An execution not started within this is missed; `None` waits for ever.
    pub starting_deadline_ms: Option<u64>,
    /// The random delay added to each start, at most, in milliseconds.
    pub jitter_ms: u64,
    /// An execution running longer than this is cancelled; `None` for no limit.
    pub timeout_ms: Option<u64>,
    /// The most attempts of one fire (1: no retries).
    pub max_attempts: u32,
}

impl From<&JobPolicy> for PolicyView {
    fn from(policy: &JobPolicy) -> Self {
        PolicyView {
            overlap: policy.overlap.as_str(),
            misfire: policy.misfire.as_str(),
            misfire_threshold_ms: millis(policy.misfire_threshold),
            starting_deadline_ms: policy.starting_deadline.map(millis),
            jitter_ms: millis(policy.jitter),
            timeout_ms: policy.timeout.map(millis),
            max_attempts: policy.retry.max_attempts,
        }
    }
}
