//! Executions: one per attempt of a fire.

use baton::core::Execution;
use serde::Serialize;

use super::{instant, maybe_instant};

/// One attempt of one fire of a job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExecutionView {
    /// The store's id; listings page by it.
    pub id: i64,
    /// The job.
    pub job: String,
    /// The fire's identity within the job.
    pub fire_key: String,
    /// The fire's scheduled instant.
    pub scheduled_at: String,
    /// 1 for the first attempt, then 2, 3, … for retries.
    pub attempt: u32,
    /// `schedule`, `manual`, `retry` or `external`.
    pub trigger: &'static str,
    /// `scheduled`, `running`, `succeeded`, `failed`, `timed_out`, `abandoned`, `skipped`,
    /// `missed` or `cancelled`.
    pub status: &'static str,
    /// When it may start.
    pub due_at: String,
    /// The worker that claimed it.
    pub node: Option<String>,
    /// The fencing token of this attempt.
    pub token: Option<u64>,
    /// When it was recorded.
    pub created_at: String,
    /// When it started.
    pub started_at: Option<String>,
    /// The last heartbeat of its worker.
    pub heartbeat_at: Option<String>,
    /// When it reached a final status.
    pub finished_at: Option<String>,
    /// The error, or the policy and reason of a skipped, missed, abandoned or cancelled one.
    pub detail: Option<String>,
    /// For a record that stands for a range of fires: the last fire of the range.
    pub covers_through: Option<String>,
    /// How many fires this record stands for.
    pub covers_count: u64,
    /// Whether it was asked to stop.
    pub cancel_requested: bool,
    /// The captured tail of a command's output, or the text its handler set. Only the view
    /// of one execution reads it ([`with_output`](Self::with_output)); listings leave it out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

impl ExecutionView {
    /// Adds the output recorded with the execution.
    pub fn with_output(mut self, output: Option<String>) -> Self {
        self.output = output;
        self
    }
}

impl From<&Execution> for ExecutionView {
    fn from(e: &Execution) -> Self {
        ExecutionView {
            id: e.id,
            job: e.job.to_string(),
            fire_key: e.fire_key.to_string(),
            scheduled_at: instant(e.scheduled_at),
            attempt: e.attempt,
            trigger: e.trigger.as_str(),
            status: e.status.as_str(),
            due_at: instant(e.due_at),
            node: e.node.as_ref().map(ToString::to_string),
            token: e.token.map(|token| token.get()),
            created_at: instant(e.created_at),
            started_at: maybe_instant(e.started_at),
            heartbeat_at: maybe_instant(e.heartbeat_at),
            finished_at: maybe_instant(e.finished_at),
            detail: e.detail.clone(),
            covers_through: maybe_instant(e.covers_through),
            covers_count: e.covers_count,
            cancel_requested: e.cancel_requested,
            output: None,
        }
    }
}
