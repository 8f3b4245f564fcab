//! Execution records: one per attempt of a fire, with its status and times.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};
use crate::lease::{FencingToken, HolderId};
use crate::schedule::JobName;
use crate::time::StoreTime;

/// Where an execution is in its life.
///
/// `Scheduled` and `Running` are live; every other status is final and never changes again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ExecutionStatus {
    /// Recorded and waiting until it is due and a worker claims it.
    Scheduled,
    /// Claimed by a worker, which heartbeats it.
    Running,
    /// The handler returned success.
    Succeeded,
    /// The handler returned an error.
    Failed,
    /// The handler ran past the job's timeout and was cancelled.
    TimedOut,
    /// Its worker stopped heartbeating; the attempt's outcome is unknown.
    Abandoned,
    /// Not run because a policy or an operator said so (overlap, pause, skip-next).
    Skipped,
    /// Not run because it was due while nothing could run it (misfire, starting deadline).
    Missed,
    /// Cancelled by an operator or replaced by a newer fire (overlap `replace`).
    Cancelled,
}

impl ExecutionStatus {
    /// Every status, in the order of their life.
    pub const ALL: [ExecutionStatus; 9] = [
        ExecutionStatus::Scheduled,
        ExecutionStatus::Running,
        ExecutionStatus::Succeeded,
        ExecutionStatus::Failed,
        ExecutionStatus::TimedOut,
        ExecutionStatus::Abandoned,
        ExecutionStatus::Skipped,
        ExecutionStatus::Missed,
        ExecutionStatus::Cancelled,
    ];

    /// The stored and printed name, e.g. `timed_out`.
    pub fn as_str(self) -> &'static str {
        match self {
            ExecutionStatus::Scheduled => "scheduled",
            ExecutionStatus::Running => "running",
            ExecutionStatus::Succeeded => "succeeded",
            ExecutionStatus::Failed => "failed",
            ExecutionStatus::TimedOut => "timed_out",
            ExecutionStatus::Abandoned => "abandoned",
            ExecutionStatus::Skipped => "skipped",
            ExecutionStatus::Missed => "missed",
            ExecutionStatus::Cancelled => "cancelled",
        }
    }

    /// Whether the status never changes again.
    pub fn is_final(self) -> bool {
        !matches!(self, ExecutionStatus::Scheduled | ExecutionStatus::Running)
    }

    /// Whether the attempt ran and did not succeed (failed, timed out, abandoned), so that a
    /// retry may follow.
    pub fn is_retryable(self) -> bool {
        matches!(
            self,
            ExecutionStatus::Failed | ExecutionStatus::TimedOut | ExecutionStatus::Abandoned
        )
    }
}

impl fmt::Display for ExecutionStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ExecutionStatus {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self> {
        let wanted = text.to_ascii_lowercase().replace('-', "_");
        ExecutionStatus::ALL.into_iter().find(|status| status.as_str() == wanted).ok_or_else(|| {
            let names: Vec<&str> = ExecutionStatus::ALL.iter().map(|s| s.as_str()).collect();
            Error::invalid_input(format!(
                "invalid execution status {}: expected one of {}",
                crate::echo::quoted(text),
                names.join(", ")
            ))
        })
    }
}

/// Why an execution was recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Trigger {
    /// A fire of the job's schedule, recorded by the scheduler leader.
    Schedule,
    /// A run-now request.
    Manual,
    /// A new attempt after a failed, timed-out or abandoned one.
    Retry,
    /// An external trigger, such as `baton exec --job` in a Kubernetes CronJob.
    External,
}

impl Trigger {
    /// Every trigger.
    pub const ALL: [Trigger; 4] =
        [Trigger::Schedule, Trigger::Manual, Trigger::Retry, Trigger::External];

    /// The stored and printed name.
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::Schedule => "schedule",
            Trigger::Manual => "manual",
            Trigger::Retry => "retry",
            Trigger::External => "external",
        }
    }
}

impl fmt::Display for Trigger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Trigger {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self> {
        Trigger::ALL.into_iter().find(|t| t.as_str() == text).ok_or_else(|| {
            Error::invalid_input(format!(
                "invalid trigger {}: expected schedule, manual, retry or external",
                crate::echo::quoted(text)
            ))
        })
    }
}

/// The identity of a fire within its job: the scheduled instant, or a caller's idempotency
/// key. `(job, fire key)` is unique across the store; attempts of one fire share it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FireKey(String);

impl FireKey {
    /// The key of the fire scheduled at `at`: the instant in RFC 3339, UTC, milliseconds
    /// (`2026-11-21T10:00:00.000Z`), so that it sorts in time order.
    pub fn at(at: StoreTime) -> Self {
        FireKey(at.to_string())
    }

    /// A caller's idempotency key: 1 to 200 bytes of printable characters without whitespace.
    pub fn idempotency(key: &str) -> Result<Self> {
        crate::name::check("idempotency key", key)?;
        Ok(FireKey(key.to_owned()))
    }

    /// Wraps a key read back from the store, unchecked.
    pub fn from_store(key: String) -> Self {
        FireKey(key)
    }

    /// The key as stored.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for FireKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The most output kept with one execution, in bytes; longer output keeps its tail.
pub const MAX_OUTPUT_BYTES: usize = 1024 * 1024;

/// The last `limit` bytes of `text` or fewer, cut at a character boundary.
pub fn output_tail(text: &str, limit: usize) -> &str {
    if text.len() <= limit {
        return text;
    }
    let mut start = text.len() - limit;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

/// One attempt of one fire of a job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Execution {
    /// The store's id; listings page by it.
    pub id: i64,
    /// The job.
    pub job: JobName,
    /// The fire's identity within the job.
    pub fire_key: FireKey,
    /// The fire's scheduled instant (for an idempotency key: when it was first recorded).
    pub scheduled_at: StoreTime,
    /// 1 for the first attempt, then 2, 3, … for retries.
    pub attempt: u32,
    /// Why it was recorded.
    pub trigger: Trigger,
    /// Where it is in its life.
    pub status: ExecutionStatus,
    /// When it may start: the scheduled instant plus jitter, or the retry's backoff.
    pub due_at: StoreTime,
    /// The worker that claimed it.
    pub node: Option<HolderId>,
    /// The fencing token of this attempt, issued when it was claimed; later attempts of the
    /// same job always carry greater tokens.
    pub token: Option<FencingToken>,
    /// When it was recorded (store clock).
    pub created_at: StoreTime,
    /// When it started: when a worker claimed it, or its due instant when the worker claimed
    /// it ahead of that instant (the worker then starts it at that instant).
    pub started_at: Option<StoreTime>,
    /// The last heartbeat of its worker.
    pub heartbeat_at: Option<StoreTime>,
    /// When it reached a final status.
    pub finished_at: Option<StoreTime>,
    /// The error of a failed attempt, or the policy and reason of a skipped, missed, abandoned
    /// or cancelled one.
    pub detail: Option<String>,
    /// For a skipped or missed record that stands for a range of fires: the last fire of the
    /// range (the first is `scheduled_at`).
    pub covers_through: Option<StoreTime>,
    /// How many fires this record stands for (1 unless it covers a range).
    pub covers_count: u64,
    /// An operator or a `replace` overlap asked the running attempt to stop.
    pub cancel_requested: bool,
}

#[cfg(test)]
mod tests {
    use super::output_tail;

    #[test]
    fn output_tail_keeps_the_end_at_a_character_boundary() {
        assert_eq!(output_tail("hello", 10), "hello");
        assert_eq!(output_tail("hello", 3), "llo");
        // "é" is two bytes: a cut inside it moves forward to the next character.
        assert_eq!(output_tail("aé b", 3), " b");
        assert_eq!(output_tail("aé b", 4), "é b");
    }
}
