//! Running one execution: its handler, panic-isolated, under the job's timeout, until it
//! returns or is told to stop; its outcome goes to the completion loop.

use std::sync::Arc;

use baton_core::job::CompleteParams;
use baton_core::{Execution, ExecutionStatus};
use tokio::time::{Instant, sleep, sleep_until};
use tokio_util::sync::CancellationToken;

use super::completion::Finished;
use super::{Running, StopReason, Worker};
use crate::claim::{self, Claim};
use crate::scheduler::JobContext;

/// How a handler's execution ended: what to record.
struct Outcome {
    status: ExecutionStatus,
    detail: Option<String>,
    output: Option<String>,
}

impl Worker {
    /// Starts the handler of a claimed execution in a slot of its own, at `start_at` when it
    /// was claimed ahead of its due instant. `claimed` is when the claim was sent: the
    /// execution's deadline counts from it until its first confirmed heartbeat.
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
        let what = format!("execution {} of job {}", execution.id, execution.job);
        let claim = self.claims.hold(execution.id, what, token, claimed, |claim| Running {
            stop: claim.cancellation().child_token(),
            reason: None,
        });
        let Some(stop) = self.claims.lock().get(&execution.id).map(|held| held.state.stop.clone())
        else {
            return;
        };
        let worker = self.clone();
        self.handlers.spawn(async move {
            match worker.execute(&execution, &claim, stop, start_at).await {
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
}

impl Worker {
    /// Runs one execution to its end and answers its outcome, or `None` when its claim ended
    /// (there is nothing to record: the store no longer runs it under this token, or soon will
    /// not). A handler told to stop (timeout, cancellation, lost claim, shutdown) sees its
    /// context cancelled and gets a short grace to return before it is aborted. A handler that
    /// panics fails its execution with the panic's message.
    async fn execute(
        &self,
        execution: &Execution,
        claim: &Arc<Claim>,
        stop: CancellationToken,
        start_at: Option<Instant>,
    ) -> Option<Outcome> {
        let Some(job) = self.jobs.get(&execution.job) else {
            self.claims.remove(&execution.id);
            return None;
        };
        if let Some(start_at) = start_at {
            tokio::select! {
                biased;
                () = stop.cancelled() => {
                    let (status, detail) = self.stop_outcome(execution, claim)?;
                    return Some(Outcome { status, detail, output: None });
                }
                () = sleep_until(start_at) => {}
            }
        }
        let timeout = job.definition.policy.timeout;
        let ctx = JobContext::new(execution, claim.clone(), timeout, stop.clone());
        let output = ctx.output.clone();
        let mut handler = claim::isolated(&self.handlers, job.handler.run(ctx));
        let grace = self.config.abandon_after / 5;
        let deadline = async {
            match timeout {
                Some(timeout) => sleep(timeout).await,
                None => std::future::pending().await,
            }
        };
        // A handler that has returned is judged by what it returned, whatever else happened.
        let ended = tokio::select! {
            biased;
            joined = handler.join() => Some(match joined {
                Ok(Ok(())) => (ExecutionStatus::Succeeded, None),
                Ok(Err(message)) | Err(message) => {
                    tracing::warn!(job = %execution.job, execution = execution.id,
                        error = %message, "the handler failed");
                    (ExecutionStatus::Failed, Some(message))
                }
            }),
            () = deadline => {
                stop.cancel();
                handler.stop(grace).await;
                let waited = timeout.unwrap_or_default();
                Some((ExecutionStatus::TimedOut, Some(format!("timed out after {waited:?}"))))
            }
            () = stop.cancelled() => {
                handler.stop(grace).await;
                self.stop_outcome(execution, claim)
            }
        };
        let (status, detail) = ended?;
        let output = output.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take();
        Some(Outcome { status, detail, output })
    }

    /// How an execution told to stop ended: `None` when its claim ended (nothing to record).
    fn stop_outcome(
        &self,
        execution: &Execution,
        claim: &Claim,
    ) -> Option<(ExecutionStatus, Option<String>)> {
        if let Err(lost) = claim.ensure_valid() {
            self.claims.remove(&execution.id);
            tracing::warn!(job = %execution.job, execution = execution.id, %lost,
                "stopped the handler: nothing is recorded, the leader abandons the attempt");
            return None;
        }
        let reason = self.claims.lock().get(&execution.id).and_then(|held| held.state.reason);
        match reason {
            Some(StopReason::ShuttingDown) => {
                let why = format!("node {} shut down before the handler finished", self.node);
                Some((ExecutionStatus::Failed, Some(why)))
            }
            _ => Some((ExecutionStatus::Cancelled, Some("cancelled on request".to_string()))),
        }
    }
}
