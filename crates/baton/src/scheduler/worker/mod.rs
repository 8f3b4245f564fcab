//! A node's worker: claims due executions of the jobs it has handlers for, runs them under
//! their fencing tokens, heartbeats them, and records how they ended.
//!
//! Four parts share the state here: the claim loop ([`claims`]), the handler tasks
//! ([`run`]), the heartbeat loop ([`heartbeat`]) and the completion loop ([`completion`]),
//! which records the outcomes that finish together in one call. Each running execution is a
//! claim of the [claim runtime](crate::claim): its deadline follows its confirmed heartbeats,
//! and the claims' enforcer stops it at that deadline or when the process stalled.

mod claims;
mod completion;
mod heartbeat;
mod run;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use baton_core::schedule::JobName;
use baton_core::{HolderId, JobStore};
use tokio::sync::{Notify, Semaphore, mpsc};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::store_clock::StoreClock;
use super::{Job, SchedulerConfig};
use crate::claim::Claims;
use completion::Finished;

/// Why a running handler was told to stop while its claim still holds. A handler whose claim
/// ended (lost, past its deadline, stalled) is stopped by the claim's cancellation instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StopReason {
    Cancelled,
    ShuttingDown,
}

/// What the worker keeps beside the claim of an execution it runs, from its claim until its
/// outcome is recorded.
struct Running {
    /// Tells the handler to stop: a child of the claim's cancellation, also fired on request,
    /// on timeout and at the end of a shutdown's grace.
    stop: CancellationToken,
    reason: Option<StopReason>,
}

/// The state the worker's tasks share.
pub(crate) struct Worker {
    store: Arc<dyn JobStore>,
    node: HolderId,
    config: SchedulerConfig,
    jobs: BTreeMap<JobName, Job>,
    /// The executions this node runs, by id.
    claims: Claims<i64, Running>,
    /// One permit per handler this node runs; it is returned once the handler's outcome is
    /// on its way to the store.
    slots: Arc<Semaphore>,
    /// Signalled whenever a slot is returned.
    freed: Notify,
    handlers: TaskTracker,
    /// Where handlers send their outcomes; taken (closing the channel) once the last handler
    /// has finished during shutdown.
    outcomes: Mutex<Option<mpsc::UnboundedSender<Finished>>>,
    /// The worker's last reading of the store's clock, for starting fires claimed ahead.
    clock: Mutex<Option<StoreClock>>,
}

impl Worker {
    /// A worker over `store` (whose calls the caller bounds) and the receiving end of its
    /// outcomes, for [`Worker::completion_loop`].
    pub(crate) fn new(
        store: Arc<dyn JobStore>,
        config: SchedulerConfig,
        jobs: Vec<Job>,
        halt: CancellationToken,
    ) -> (Self, mpsc::UnboundedReceiver<Finished>) {
        let jobs = jobs.into_iter().map(|job| (job.name().clone(), job)).collect();
        let (outcomes, received) = mpsc::unbounded_channel();
        let act_for = local_deadline(&config);
        let claims = Claims::new(act_for, config.elector.stall_threshold, halt.child_token());
        let worker = Worker {
            store,
            node: config.node().clone(),
            slots: Arc::new(Semaphore::new(config.max_concurrent)),
            config,
            jobs,
            claims,
            freed: Notify::new(),
            handlers: TaskTracker::new(),
            outcomes: Mutex::new(Some(outcomes)),
            clock: Mutex::new(None),
        };
        (worker, received)
    }

    /// Tells the handlers of `ids` to stop while their claims still hold; the first reason
    /// given is kept.
    fn stop(&self, ids: &[i64], reason: StopReason) {
        let mut claims = self.claims.lock();
        for id in ids {
            if let Some(held) = claims.get_mut(id) {
                held.state.reason.get_or_insert(reason);
                held.state.stop.cancel();
            }
        }
    }

    /// Runs until the worker has drained: stops each execution at its claim's deadline and
    /// every execution when the process stalled (their handlers see their context cancelled,
    /// and nothing is recorded for them: the leader abandons and retries them).
    pub(crate) async fn enforce_claims(self: Arc<Self>) {
        self.claims.enforce(|_, _, _| {}).await;
    }

    /// Waits for running handlers up to the grace period, then stops the rest (they are
    /// recorded as failed, so that their retry policy applies), and closes the outcome
    /// channel so that the completion loop ends once it has recorded everything.
    pub(crate) async fn drain(&self) {
        self.handlers.close();
        if tokio::time::timeout(self.config.shutdown_grace, self.handlers.wait()).await.is_err() {
            let ids: Vec<i64> = self.claims.lock().keys().copied().collect();
            self.stop(&ids, StopReason::ShuttingDown);
            self.handlers.wait().await;
        }
        self.outcomes.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take();
        self.claims.close();
    }
}

/// How long after the send time of its last confirmed call this node may still act on an
/// execution: 6/10 of `abandon_after`, so that it stops before the leader can abandon the
/// execution and a retry can start elsewhere.
pub(crate) fn local_deadline(config: &SchedulerConfig) -> Duration {
    config.abandon_after.mul_f64(0.6)
}
