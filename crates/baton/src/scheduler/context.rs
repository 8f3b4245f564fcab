//! What a handler learns about the execution it runs.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use baton_core::job::{MAX_OUTPUT_BYTES, output_tail};
use baton_core::schedule::JobName;
use baton_core::{Execution, FencingToken, Result, StoreTime, Trigger};
use tokio_util::sync::CancellationToken;

use crate::claim::Claim;

/// The execution a handler runs: its identity, its fencing token and its cancellation.
///
/// Pass [`JobContext::token`] to every write the job makes through a fenced sink: when the
/// attempt is abandoned (its node stopped heartbeating) and retried elsewhere, the retry's
/// token is greater, and the abandoned attempt's late writes are rejected.
#[derive(Debug, Clone)]
pub struct JobContext {
    pub(crate) job: JobName,
    pub(crate) execution_id: i64,
    pub(crate) scheduled_at: StoreTime,
    pub(crate) attempt: u32,
    pub(crate) trigger: Trigger,
    pub(crate) claim: Arc<Claim>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) cancel: CancellationToken,
    pub(crate) output: OutputSlot,
}

/// Where a handler leaves the output to keep with its execution.
pub(crate) type OutputSlot = Arc<Mutex<Option<String>>>;

impl JobContext {
    pub(crate) fn new(
        execution: &Execution,
        claim: Arc<Claim>,
        timeout: Option<Duration>,
        cancel: CancellationToken,
    ) -> Self {
        JobContext {
            job: execution.job.clone(),
            execution_id: execution.id,
            scheduled_at: execution.scheduled_at,
            attempt: execution.attempt,
            trigger: execution.trigger,
            claim,
            timeout,
            cancel,
            output: OutputSlot::default(),
        }
    }

    /// The job.
    pub fn job(&self) -> &JobName {
        &self.job
    }

    /// The execution's id in the store.
    pub fn execution_id(&self) -> i64 {
        self.execution_id
    }

    /// The fire's scheduled instant (UTC), the same for every attempt of the fire.
    pub fn scheduled_at(&self) -> StoreTime {
        self.scheduled_at
    }

    /// 1 for the first attempt, 2 and up for retries.
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// Why the execution exists: the schedule, a run-now, a retry or an external trigger.
    pub fn trigger(&self) -> Trigger {
        self.trigger
    }

    /// This attempt's fencing token.
    pub fn token(&self) -> FencingToken {
        self.claim.token()
    }

    /// Checks right now, without a store call, that this attempt may still act: its node
    /// confirmed it recently enough, it was not lost and the process did not stall. Call it
    /// before every external write; it fails with `LeaseLost` once the handler must stop
    /// acting (a retry may soon run elsewhere).
    pub fn ensure_valid(&self) -> Result<()> {
        self.claim.ensure_valid()
    }

    /// The job's timeout, after which the handler is cancelled.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// Resolves when the handler must stop: timeout, cancellation, lost claim (a heartbeat
    /// refused, its deadline passed, a stall) or shutdown.
    pub async fn cancelled(&self) {
        self.cancel.cancelled().await;
    }

    /// Whether the handler must stop.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// The cancellation token, to hand to tasks the handler starts.
    pub fn cancellation_token(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Keeps `output` with the execution when the handler returns (the last call wins): what
    /// the job printed or wants an operator to read. Output longer than
    /// [`MAX_OUTPUT_BYTES`] keeps its tail.
    pub fn set_output(&self, output: impl Into<String>) {
        let mut output = output.into();
        if output.len() > MAX_OUTPUT_BYTES {
            output = output_tail(&output, MAX_OUTPUT_BYTES).to_owned();
        }
        *self.output.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(output);
    }
}
