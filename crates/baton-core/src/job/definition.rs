//! Job definitions and the stored job record.

use crate::schedule::{JobName, JobPolicy, Schedule};
use crate::time::StoreTime;

/// What a job is: its name, when it fires and the policies that govern its executions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobDefinition {
    /// The job's unique name; half of every fire's identity.
    pub name: JobName,
    /// When the job fires.
    pub schedule: Schedule,
    /// Overlap, misfire, retry, timeout and retention rules.
    pub policy: JobPolicy,
}

/// A job as stored: its definition and the operator's controls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// The store's id of the job; listings page by it.
    pub id: i64,
    /// The definition last registered.
    pub definition: JobDefinition,
    /// Fires of a paused job are recorded as skipped instead of running.
    pub paused: bool,
    /// Fires scheduled at or before this instant are recorded as skipped (`skip-next`).
    pub skip_through: Option<StoreTime>,
    /// When the job was first registered (store clock); no fire before it is ever planned.
    pub created_at: StoreTime,
    /// When the definition or a control last changed (store clock).
    pub updated_at: StoreTime,
}

impl Job {
    /// The job's name.
    pub fn name(&self) -> &JobName {
        &self.definition.name
    }
}
