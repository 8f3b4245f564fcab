//! Running one execution: its handler under the job's timeout, until it returns or is told
//! to stop; its outcome goes to the completion loop.

use std::sync::Arc;

use baton_core::job::CompleteParams;
use baton_core::{Execution, ExecutionStatus, FencingToken};
use tokio::time::{Instant, sleep, sleep_until};
use tokio_util::sync::CancellationToken;

use super::completion::Finished;
use super::{Running, StopReason, Worker};
use crate::scheduler::JobContext;

/// How a handler's execution ended: what to record.
struct Outcome {
    status: ExecutionStatus,
    detail: Option<String>,
    output: Option<String>,
}

impl Worker {
    /// Starts the handler of a claimed execution in a slot of its own, at `start_at` when it
    /// was claimed ahead of its due instant.
    pub(super) fn start(
        self: &Arc<Self>,
        execution: Execution,
        claimed: Instant,
        start_at: Option<Instant>,
    ) {
        let Some(token) = execution.token else {
            tracing::error!(execution = execution.id, "claimed execution has no token");
            return;
        };
        let Ok(slot) = self.slots.clone().try_acquire_owned() else {
            tracing::error!(execution = execution.id, "claimed more executions than free slots");
            return;
        };
        let Some(outcomes) =
            self.outcomes.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
        else {
            tracing::error!(execution = execution.id, "claimed an execution while shutting down");
            return;
        };
        let cancel = CancellationToken::new();
        self.running().insert(
            execution.id,
            Running { token, cancel: cancel.clone(), reason: None, confirmed: claimed },
        );
        let worker = self.clone();
        self.handlers.spawn(async move {
            match worker.execute(&execution, token, cancel, start_at).await {
                Some(Outcome { status, detail, output }) => {
                    let params = CompleteParams { id: execution.id, token, status, detail, output };
                    // The channel closes only after every handler has finished.
                    let _ = outcomes.send(Finished { job: execution.job, params, slot });
                }
                None => {
                    drop(slot);
                    worker.freed.notify_one();
                }
            }
        });
    }

    /// Runs one execution to its end and answers its outcome, or `None` when it was lost
    /// (there is nothing to record). A handler told to stop (timeout, cancellation, lost
    /// execution, shutdown) sees its context cancelled and gets a short grace to return
    /// before it is dropped.
    async fn execute(
        &self,
        execution: &Execution,
        token: FencingToken,
        cancel: CancellationToken,
        start_at: Option<Instant>,
    ) -> Option<Outcome> {
        let Some(job) = self.jobs.get(&execution.job) else {
            self.running().remove(&execution.id);
            return None;
        };
        if let Some(start_at) = start_at {
            tokio::select! {
                () = sleep_until(start_at) => {}
                () = cancel.cancelled() => {
                    let (status, detail) = self.stop_outcome(execution)?;
                    return Some(Outcome { status, detail, output: None });
                }
            }
        }
        let timeout = job.definition.policy.timeout;
        let ctx = JobContext::new(execution, token, timeout, cancel.clone());
        let output = ctx.output.clone();
        let mut handler = job.handler.run(ctx);
        let grace = self.config.abandon_after / 5;
        let stopped = |handler| async move {
            let _ = tokio::time::timeout(grace, handler).await;
        };
        let deadline = async {
            match timeout {
                Some(timeout) => sleep(timeout).await,
                None => std::future::pending().await,
            }
        };
        // A handler that has returned is judged by what it returned, whatever else happened.
        let ended = tokio::select! {
            biased;
            outcome = &mut handler => Some(match outcome {
                Ok(()) => (ExecutionStatus::Succeeded, None),
                Err(message) => (ExecutionStatus::Failed, Some(message)),
            }),
            () = deadline => {
                cancel.cancel();
                stopped(&mut handler).await;
                let waited = timeout.unwrap_or_default();
                Some((ExecutionStatus::TimedOut, Some(format!("timed out after {waited:?}"))))
            }
            () = cancel.cancelled() => {
                stopped(&mut handler).await;
                self.stop_outcome(execution)
            }
        };
        let (status, detail) = ended?;
        let output = output.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take();
        Some(Outcome { status, detail, output })
    }

    /// How an execution told to stop ended: `None` when it was lost (the store no longer
    /// runs it under this token, so there is nothing to record).
    fn stop_outcome(&self, execution: &Execution) -> Option<(ExecutionStatus, Option<String>)> {
        let reason = self.running().get(&execution.id).and_then(|running| running.reason);
        match reason {
            Some(StopReason::Lost) => {
                self.running().remove(&execution.id);
                tracing::warn!(job = %execution.job, execution = execution.id,
                    "execution lost: stopped its handler");
                None
            }
            Some(StopReason::ShuttingDown) => {
                let why = format!("node {} shut down before the handler finished", self.node);
                Some((ExecutionStatus::Failed, Some(why)))
            }
            _ => Some((ExecutionStatus::Cancelled, Some("cancelled on request".to_string()))),
        }
    }
}
