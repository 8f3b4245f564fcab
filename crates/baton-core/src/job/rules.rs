//! Pure decisions about executions, shared by the backends that run them in Rust: what a claim
//! does with a due execution, and when a retry follows a failed attempt.

use std::time::Duration;

use super::{Execution, ExecutionStatus, Job};
use crate::schedule::{OverlapPolicy, RetryPolicy};
use crate::time::StoreTime;

/// What a claim does with one due execution.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClaimDecision {
    /// Run it now on the claiming worker.
    Run,
    /// Leave it scheduled for a later claim (an earlier execution of the job still runs).
    Wait,
    /// Leave it scheduled and ask this running execution to stop (overlap `replace`).
    WaitAndCancel(i64),
    /// Settle it without running, with this final status and reason.
    Settle(ExecutionStatus, String),
}

/// What the claim knows about the execution's job at the instant of the claim.
#[derive(Debug, Clone, Copy)]
pub struct JobState<'a> {
    /// The job as stored, or `None` if it is no longer registered.
    pub job: Option<&'a Job>,
    /// The job's execution that runs now, if any.
    pub running: Option<&'a Execution>,
    /// The id of the job's earliest scheduled execution that is due, if any.
    pub first_waiting: Option<i64>,
}

/// Decides what a claim at `now` does with the due execution `due`.
pub fn claim_decision(due: &Execution, state: JobState<'_>, now: StoreTime) -> ClaimDecision {
    let Some(job) = state.job else {
        return ClaimDecision::Settle(ExecutionStatus::Skipped, "job is not registered".into());
    };
    if job.paused {
        return ClaimDecision::Settle(ExecutionStatus::Skipped, "job is paused".into());
    }
    let policy = &job.definition.policy;
    if let Some(deadline) = policy.starting_deadline {
        let late = now.saturating_since(due.due_at);
        if late > deadline {
            return ClaimDecision::Settle(
                ExecutionStatus::Missed,
                format!(
                    "starting deadline {} passed: due {} ago",
                    seconds(deadline),
                    seconds(late)
                ),
            );
        }
    }
    let Some(running) = state.running.filter(|running| running.id != due.id) else {
        return ClaimDecision::Run;
    };
    match policy.overlap {
        OverlapPolicy::Forbid => ClaimDecision::Settle(
            ExecutionStatus::Skipped,
            format!("overlap=forbid: execution {} still running", running.id),
        ),
        OverlapPolicy::Replace if running.cancel_requested => ClaimDecision::Wait,
        OverlapPolicy::Replace => ClaimDecision::WaitAndCancel(running.id),
        OverlapPolicy::BufferOne => match state.first_waiting {
            Some(first) if first != due.id => ClaimDecision::Settle(
                ExecutionStatus::Skipped,
                format!("overlap=buffer-one: execution {first} already waiting"),
            ),
            _ => ClaimDecision::Wait,
        },
        _ => ClaimDecision::Run,
    }
}

/// When the next attempt is due after an attempt ended in `status` at `now`, or `None` when
/// the retry policy allows no further attempt.
pub fn retry_due(
    policy: &RetryPolicy,
    status: ExecutionStatus,
    attempt: u32,
    now: StoreTime,
) -> Option<StoreTime> {
    (status.is_retryable() && policy.should_retry(attempt))
        .then(|| now.saturating_add(policy.backoff(attempt)))
}

fn seconds(duration: Duration) -> String {
    format!("{:.1}s", duration.as_secs_f64())
}
