//! A node's worker: its incarnation in the store, and the partitions it runs under their
//! fencing tokens.
//!
//! Four parts share the state here: the incarnation ([`incarnation`]: registration, fencing,
//! leaving), the heartbeat loop ([`heartbeat`]), the claim loop ([`claims`], woken by
//! [`pending`]) and the partition tasks ([`run`]).

mod claims;
mod heartbeat;
mod incarnation;
mod pending;
mod run;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use baton_core::cluster::{ClusterStore, NodeId, partition_lost};
use baton_core::schedule::JobName;
use baton_core::{Error, FencingToken, Result};
use tokio::sync::{Notify, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::{ClusterConfig, PartitionedJob};

/// The partitioned jobs a node runs, by name.
pub(crate) type Jobs = HashMap<JobName, PartitionedJob>;

/// Why a running partition was told to stop. A partition told to stop never records an
/// outcome: it was moved, or it is handed over by the node's next registration or its leave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StopReason {
    /// The store no longer has it claimed under its token.
    Lost,
    /// The node's incarnation is fenced, or no heartbeat was confirmed in time.
    Fenced,
    /// The node is shutting down and the grace period is over.
    ShuttingDown,
}

/// A partition this node runs, from its claim until its outcome is recorded.
struct Running {
    token: FencingToken,
    cancel: CancellationToken,
    reason: Option<StopReason>,
    /// Units of work done, as last reported; heartbeats carry it.
    progress: u64,
}

impl Running {
    /// Tells the partition to stop; the first reason given is kept.
    fn stop(&mut self, reason: StopReason) {
        self.reason.get_or_insert(reason);
        self.cancel.cancel();
    }
}

/// What the node knows of itself, behind one lock so that a partition starts either before
/// a fence (and is stopped by it) or not at all.
struct Local {
    /// The token of the current incarnation.
    token: FencingToken,
    /// When the last call confirming the incarnation (its registration, then each heartbeat)
    /// was sent.
    confirmed: Instant,
    /// Set from the moment the incarnation is given up until the next one is registered.
    fenced: bool,
    running: HashMap<i64, Running>,
}

/// The state the worker's tasks share.
pub(crate) struct Worker {
    store: Arc<dyn ClusterStore>,
    config: ClusterConfig,
    jobs: Arc<Jobs>,
    local: Mutex<Local>,
    /// How many partitions run; claims wait on it for a free slot, fencing for none.
    count: watch::Sender<usize>,
    /// The job of each batch seen, so that a claimed partition finds its handler.
    batches: Mutex<HashMap<i64, JobName>>,
    /// Fires when the node is dropped: every partition stops.
    halt: CancellationToken,
    handlers: TaskTracker,
    /// Signalled when this node created a batch, so that its claim loop looks at once rather
    /// than at the next heartbeat interval.
    nudge: Notify,
}

impl Worker {
    fn local(&self) -> MutexGuard<'_, Local> {
        self.local.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Wakes the claim loop: partitions may be pending.
    pub(crate) fn nudge(&self) {
        self.nudge.notify_one();
    }

    fn batches(&self) -> MutexGuard<'_, HashMap<i64, JobName>> {
        self.batches.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// This node's id.
    pub(crate) fn node(&self) -> &NodeId {
        &self.config.node
    }

    /// The local instant after which this node must not act: the send time of the last
    /// confirmed heartbeat plus 6/10 of the unreachable threshold (I3).
    fn deadline(&self, local: &Local) -> Instant {
        local.confirmed + self.config.act_for()
    }

    /// Whether the incarnation may act: not fenced and within its deadline.
    fn acting(&self, local: &Local) -> bool {
        !local.fenced && Instant::now() < self.deadline(local)
    }

    /// The current incarnation's token, if it may claim work.
    fn ready(&self) -> Option<FencingToken> {
        let local = self.local();
        self.acting(&local).then_some(local.token)
    }

    fn stop(&self, ids: &[i64], reason: StopReason) {
        let mut local = self.local();
        for id in ids {
            if let Some(running) = local.running.get_mut(id) {
                running.stop(reason);
            }
        }
    }

    /// Checks right now that the partition `id` may still act under `token`: the node is
    /// within its deadline and not fenced, and the partition was not lost. `LeaseLost`
    /// otherwise. A partition stopped by a shutdown may still act until it returns.
    pub(crate) fn ensure_valid(&self, id: i64, token: FencingToken) -> Result<()> {
        let local = self.local();
        if !self.acting(&local) {
            return Err(Error::lease_lost(format!(
                "node {} must stop: no heartbeat was confirmed within {:?}, or it was fenced",
                self.config.node,
                self.config.act_for()
            )));
        }
        match local.running.get(&id) {
            Some(running)
                if running.token == token
                    && !matches!(running.reason, Some(StopReason::Lost | StopReason::Fenced)) =>
            {
                Ok(())
            }
            _ => Err(partition_lost(id, token)),
        }
    }

    /// Records the progress of a running partition, for the next heartbeat.
    pub(crate) fn set_progress(&self, id: i64, progress: u64) {
        if let Some(running) = self.local().running.get_mut(&id) {
            running.progress = progress;
        }
    }

    /// Marks a partition as lost: the store refused a write under its token.
    pub(crate) fn lost(&self, id: i64) {
        self.stop(&[id], StopReason::Lost);
    }

    /// The store this worker writes to.
    pub(crate) fn store(&self) -> &Arc<dyn ClusterStore> {
        &self.store
    }

    /// Waits for running partitions up to the grace period, then stops the rest, which are
    /// handed over when the node leaves; waits until every partition task has ended.
    pub(crate) async fn drain(&self) {
        self.handlers.close();
        let grace = self.config.shutdown_grace;
        if tokio::time::timeout(grace, self.handlers.wait()).await.is_err() {
            self.local().running.values_mut().for_each(|r| r.stop(StopReason::ShuttingDown));
            self.handlers.wait().await;
        }
    }
}
