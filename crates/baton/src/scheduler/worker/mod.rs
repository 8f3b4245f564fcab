//! A node's worker: claims due executions of the jobs it has handlers for, runs them under
//! their fencing tokens, heartbeats them, and records how they ended.
//!
//! Four parts share the state here: the claim loop ([`claims`]), the handler tasks
//! ([`run`]), the heartbeat loop ([`heartbeat`]) and the completion loop ([`completion`]),
//! which records the outcomes that finish together in one call.

mod claims;
mod completion;
mod heartbeat;
mod run;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use baton_core::schedule::JobName;
use baton_core::{FencingToken, HolderId, JobStore};
use tokio::sync::{Notify, Semaphore, mpsc};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::store_clock::StoreClock;
use super::{Job, SchedulerConfig};
use completion::Finished;

/// Why a running handler was told to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StopReason {
    Cancelled,
    Lost,
    ShuttingDown,
}

/// An execution this node runs, from its claim until its outcome is recorded.
struct Running {
    token: FencingToken,
    cancel: CancellationToken,
    reason: Option<StopReason>,
    /// When the last call that the store confirmed for this execution (its claim, then each
    /// heartbeat) was sent.
    confirmed: Instant,
}

/// The state the worker's tasks share.
pub(crate) struct Worker {
    store: Arc<dyn JobStore>,
    node: HolderId,
    config: SchedulerConfig,
    jobs: HashMap<JobName, Job>,
    running: Mutex<HashMap<i64, Running>>,
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
    /// A worker and the receiving end of its outcomes, for [`Worker::completion_loop`].
    pub(crate) fn new(
        store: Arc<dyn JobStore>,
        config: SchedulerConfig,
        jobs: Vec<Job>,
    ) -> (Self, mpsc::UnboundedReceiver<Finished>) {
        let jobs = jobs.into_iter().map(|job| (job.name().clone(), job)).collect();
        let (outcomes, received) = mpsc::unbounded_channel();
        let worker = Worker {
            store,
            node: config.node().clone(),
            slots: Arc::new(Semaphore::new(config.max_concurrent)),
            config,
            jobs,
            running: Mutex::new(HashMap::new()),
            freed: Notify::new(),
            handlers: TaskTracker::new(),
            outcomes: Mutex::new(Some(outcomes)),
            clock: Mutex::new(None),
        };
        (worker, received)
    }

    fn running(&self) -> MutexGuard<'_, HashMap<i64, Running>> {
        self.running.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// How long after the send time of its last confirmed call this node may still act on an
    /// execution: 6/10 of `abandon_after`, so that it stops before the leader can abandon the
    /// execution and a retry can start elsewhere.
    fn local_deadline(&self) -> std::time::Duration {
        self.config.abandon_after.mul_f64(0.6)
    }

    fn stop(&self, ids: &[i64], reason: StopReason) {
        let mut running = self.running();
        for id in ids {
            if let Some(entry) = running.get_mut(id) {
                entry.reason.get_or_insert(reason);
                entry.cancel.cancel();
            }
        }
    }

    /// Waits for running handlers up to the grace period, then stops the rest (they are
    /// recorded as failed, so that their retry policy applies), and closes the outcome
    /// channel so that the completion loop ends once it has recorded everything.
    pub(crate) async fn drain(&self) {
        self.handlers.close();
        if tokio::time::timeout(self.config.shutdown_grace, self.handlers.wait()).await.is_err() {
            let ids: Vec<i64> = self.running().keys().copied().collect();
            self.stop(&ids, StopReason::ShuttingDown);
            self.handlers.wait().await;
        }
        self.outcomes.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take();
    }
}
