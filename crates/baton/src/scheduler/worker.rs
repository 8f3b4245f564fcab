//! A node's worker: claims due executions of the jobs it has handlers for, runs them under
//! their fencing tokens, heartbeats them, and records how they ended.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use baton_core::job::{ClaimParams, CompleteParams, DueChanges, HeartbeatParams};
use baton_core::schedule::JobName;
use baton_core::{Execution, ExecutionStatus, FencingToken, HolderId, JobStore};
use tokio::sync::{Notify, Semaphore};
use tokio::time::{Instant, sleep, sleep_until};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::{Job, JobContext, SchedulerConfig};

/// Why a running handler was told to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StopReason {
    Cancelled,
    Lost,
    ShuttingDown,
}

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
    slots: Arc<Semaphore>,
    finished: Notify,
    handlers: TaskTracker,
}

impl Worker {
    pub(crate) fn new(store: Arc<dyn JobStore>, config: SchedulerConfig, jobs: Vec<Job>) -> Self {
        let jobs = jobs.into_iter().map(|job| (job.name().clone(), job)).collect();
        Worker {
            store,
            node: config.node().clone(),
            slots: Arc::new(Semaphore::new(config.max_concurrent)),
            config,
            jobs,
            running: Mutex::new(HashMap::new()),
            finished: Notify::new(),
            handlers: TaskTracker::new(),
        }
    }

    fn running(&self) -> MutexGuard<'_, HashMap<i64, Running>> {
        self.running.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Claims and starts work until `stop` fires.
    pub(crate) async fn claim_loop(self: Arc<Self>, stop: CancellationToken) {
        if self.jobs.is_empty() {
            return;
        }
        let mut feed = self.subscribe().await;
        loop {
            if stop.is_cancelled() {
                return;
            }
            if self.slots.available_permits() == 0 {
                // Every slot is busy: claim again once a handler finishes. Its notification is
                // stored if it finished first, so none is lost.
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = self.finished.notified() => {}
                }
                continue;
            }
            let took = match self.claim_once().await {
                Ok(took) => took,
                Err(err) => {
                    tracing::warn!(%err, "claiming executions failed, retrying");
                    false
                }
            };
            if took {
                // More may be due: claim again at once (or once a slot frees up).
                continue;
            }
            let wake = self.next_wake().await;
            tokio::select! {
                () = stop.cancelled() => return,
                () = sleep_until(wake) => {}
                woken = next_due(&mut feed) => {
                    if !woken {
                        feed = self.subscribe().await;
                    }
                }
            }
        }
    }

    async fn subscribe(&self) -> Option<Box<dyn DueChanges>> {
        match self.store.subscribe_due().await {
            Ok(feed) => feed,
            Err(err) => {
                tracing::warn!(%err, "cannot subscribe to due executions; polling");
                None
            }
        }
    }

    /// When to look again without a notification: the next due instant, capped by the poll
    /// interval. An execution already due that the last claim did not take is waiting on its
    /// job's overlap policy; the worker then looks again after a heartbeat interval rather
    /// than at once, so it never spins.
    async fn next_wake(&self) -> Instant {
        let poll = Instant::now() + self.config.poll_interval;
        let retry = Instant::now() + self.config.heartbeat_interval;
        let (next, now) = match (self.store.next_due().await, self.store.now().await) {
            (Ok(Some(next)), Ok(now)) => (next, now),
            (Ok(None), _) => return poll,
            _ => return retry,
        };
        if next <= now {
            return retry.min(poll);
        }
        (Instant::now() + next.saturating_since(now)).min(poll)
    }

    /// One claim for the free slots; answers whether it took anything, in which case more may
    /// be due at once.
    async fn claim_once(self: &Arc<Self>) -> baton_core::Result<bool> {
        let free = self.slots.available_permits().min(self.config.claim_batch as usize);
        if free == 0 {
            return Ok(false);
        }
        let params = ClaimParams {
            node: self.node.clone(),
            limit: u32::try_from(free).unwrap_or(u32::MAX),
            jobs: self.jobs.keys().cloned().collect(),
        };
        let sent = Instant::now();
        let claimed = self.store.claim(params).await?;
        for settled in &claimed.settled {
            tracing::info!(job = %settled.job, execution = settled.id, status = %settled.status,
                detail = settled.detail.as_deref().unwrap_or(""), "execution settled without running");
        }
        let took = !claimed.running.is_empty() || !claimed.settled.is_empty();
        for execution in claimed.running {
            self.start(execution, sent);
        }
        Ok(took)
    }

    fn start(self: &Arc<Self>, execution: Execution, claimed: Instant) {
        let Some(token) = execution.token else {
            tracing::error!(execution = execution.id, "claimed execution has no token");
            return;
        };
        let Ok(permit) = self.slots.clone().try_acquire_owned() else {
            tracing::error!(execution = execution.id, "claimed more executions than free slots");
            return;
        };
        let cancel = CancellationToken::new();
        self.running().insert(
            execution.id,
            Running { token, cancel: cancel.clone(), reason: None, confirmed: claimed },
        );
        let worker = self.clone();
        self.handlers.spawn(async move {
            worker.execute(execution, token, cancel).await;
            drop(permit);
            worker.finished.notify_one();
        });
    }

    /// Runs one execution to its end and records the outcome. A handler told to stop (timeout,
    /// cancellation, lost execution, shutdown) sees its context cancelled and gets a short
    /// grace to return before it is dropped.
    async fn execute(&self, execution: Execution, token: FencingToken, cancel: CancellationToken) {
        let Some(job) = self.jobs.get(&execution.job) else { return };
        let timeout = job.definition.policy.timeout;
        let ctx = JobContext::new(&execution, token, timeout, cancel.clone());
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
        let (status, detail) = tokio::select! {
            biased;
            outcome = &mut handler => match outcome {
                Ok(()) => (ExecutionStatus::Succeeded, None),
                Err(message) => (ExecutionStatus::Failed, Some(message)),
            },
            () = deadline => {
                cancel.cancel();
                stopped(&mut handler).await;
                let waited = timeout.unwrap_or_default();
                (ExecutionStatus::TimedOut, Some(format!("timed out after {waited:?}")))
            }
            () = cancel.cancelled() => {
                stopped(&mut handler).await;
                let Some(outcome) = self.stop_outcome(&execution) else { return };
                outcome
            }
        };
        self.running().remove(&execution.id);
        let params = CompleteParams { id: execution.id, token, status, detail };
        if let Err(err) = self.store.complete(params).await {
            tracing::warn!(job = %execution.job, execution = execution.id, %err, "recording the outcome failed");
        }
    }

    /// How an execution told to stop ended: `None` when it was lost (the store no longer
    /// runs it under this token, so there is nothing to record).
    fn stop_outcome(&self, execution: &Execution) -> Option<(ExecutionStatus, Option<String>)> {
        match self.stop_reason(execution.id) {
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

    /// Why a running execution was told to stop, if it was. The lock is released on return.
    fn stop_reason(&self, id: i64) -> Option<StopReason> {
        self.running().get(&id).and_then(|running| running.reason)
    }

    /// Heartbeats the running executions every interval until `stop` fires, and stops any
    /// execution whose last confirmed heartbeat is older than the local deadline: it stops
    /// before the leader can abandon it and start a retry elsewhere (I3).
    pub(crate) async fn heartbeat_loop(self: Arc<Self>, stop: CancellationToken) {
        let deadline = self.config.abandon_after.mul_f64(0.6);
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                () = sleep(self.config.heartbeat_interval) => {}
            }
            let executions: Vec<(i64, FencingToken)> =
                self.running().iter().map(|(id, running)| (*id, running.token)).collect();
            if !executions.is_empty() {
                let sent = Instant::now();
                let params = HeartbeatParams { node: self.node.clone(), executions };
                match self.store.heartbeat(params).await {
                    Ok(outcome) => {
                        self.confirm(sent, &outcome.lost);
                        self.stop(&outcome.lost, StopReason::Lost);
                        self.stop(&outcome.cancel, StopReason::Cancelled);
                    }
                    Err(err) => tracing::warn!(%err, "heartbeat failed"),
                }
            }
            let overdue: Vec<i64> = self
                .running()
                .iter()
                .filter(|(_, running)| running.confirmed.elapsed() > deadline)
                .map(|(id, _)| *id)
                .collect();
            if !overdue.is_empty() {
                tracing::warn!(executions = ?overdue, ?deadline,
                    "no heartbeat confirmed within the deadline: stopping before a retry can start elsewhere");
                self.stop(&overdue, StopReason::Lost);
            }
        }
    }

    /// Records that the store confirmed, for a call sent at `sent`, every running execution
    /// but the `lost` ones.
    fn confirm(&self, sent: Instant, lost: &[i64]) {
        for (id, running) in self.running().iter_mut() {
            if !lost.contains(id) {
                running.confirmed = running.confirmed.max(sent);
            }
        }
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

    /// Waits for running handlers up to the grace period, then stops the rest; they are
    /// recorded as failed so that their retry policy applies.
    pub(crate) async fn drain(&self) {
        self.handlers.close();
        if tokio::time::timeout(self.config.shutdown_grace, self.handlers.wait()).await.is_err() {
            let ids: Vec<i64> = self.running().keys().copied().collect();
            self.stop(&ids, StopReason::ShuttingDown);
            self.handlers.wait().await;
        }
    }
}

/// Waits for the next wake-up of the feed; `false` when the feed broke. Without a feed it
/// never resolves, so the poll timer decides.
async fn next_due(feed: &mut Option<Box<dyn DueChanges>>) -> bool {
    match feed {
        Some(feed) => feed.next().await.is_ok(),
        None => std::future::pending().await,
    }
}
