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

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use baton_core::cluster::{ClusterStore, NodeId, partition_lost};
use baton_core::schedule::JobName;
use baton_core::{Error, FencingToken, Result};
use tokio::sync::{Notify, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::{ClusterConfig, PartitionedJob};
use crate::claim::{Claims, Ending};
use crate::planted::{Bug, planted};

/// The partitioned jobs a node runs, by name.
pub(crate) type Jobs = BTreeMap<JobName, PartitionedJob>;

/// What the worker keeps beside the claim of a partition it runs, from its claim until its
/// outcome is recorded. A partition whose claim ended (lost, fenced, past its deadline,
/// stalled) never records an outcome: it was moved, or it is handed over by the node's next
/// registration or its leave.
struct Running {
    /// Tells the handler to stop: a child of the claim's cancellation, also fired when a
    /// shutdown's grace is over.
    stop: CancellationToken,
    /// Units of work done, as last reported; heartbeats carry it.
    progress: u64,
}

/// What the node knows of its incarnation, behind one lock taken before the partitions' (so
/// that a partition starts either before a fence, and is stopped by it, or not at all).
struct Local {
    /// The token of the current incarnation.
    token: FencingToken,
    /// When the last call confirming the incarnation (its registration, then each heartbeat)
    /// was sent.
    confirmed: Instant,
    /// Set from the moment the incarnation is given up until the next one is registered.
    fenced: bool,
}

/// The state the worker's tasks share.
pub(crate) struct Worker {
    store: Arc<dyn ClusterStore>,
    config: ClusterConfig,
    jobs: Arc<Jobs>,
    local: Mutex<Local>,
    /// The partitions this node runs, by id: claims of the claim runtime, ended when the node
    /// is dropped.
    partitions: Claims<i64, Running>,
    /// How many partitions run; claims wait on it for a free slot, fencing for none.
    count: watch::Sender<usize>,
    /// The job of each batch seen, so that a claimed partition finds its handler.
    batches: Mutex<BTreeMap<i64, JobName>>,
    handlers: TaskTracker,
    /// Signalled when this node created a batch, so that its claim loop looks at once rather
    /// than at the next heartbeat interval.
    nudge: Notify,
    /// Signalled when the process stalled: the incarnation is given up.
    stalled: Notify,
    /// Signalled when the store may hold partitions for this incarnation that it does not run
    /// (a claim's answer was lost, or a claim lapsed while the node still acts): the store
    /// keeps a live node's claims, so only a new incarnation hands them back.
    orphaned: Notify,
}

impl Worker {
    fn local(&self) -> MutexGuard<'_, Local> {
        self.local.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Wakes the claim loop: partitions may be pending.
    pub(crate) fn nudge(&self) {
        self.nudge.notify_one();
    }

    fn batches(&self) -> MutexGuard<'_, BTreeMap<i64, JobName>> {
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

    /// Ends the claims of the partitions `ids`: their handlers stop and record nothing.
    fn end(&self, ids: &[i64], reason: &str) {
        let claims = self.partitions.lock();
        for id in ids {
            if let Some(held) = claims.get(id) {
                held.claim.end(reason);
            }
        }
    }

    /// Runs until `stop` fires: stops each partition at its claim's deadline, and on a stall
    /// of the process every partition, and then gives up the incarnation. A partition past
    /// its deadline while the node itself still acts (its claim's answer came late, and no
    /// heartbeat carrying it was confirmed since) is still claimed for this live node on the
    /// store, which would never move it: the incarnation is given up too, so that it goes back.
    pub(crate) async fn enforce_claims(self: Arc<Self>, stop: CancellationToken) {
        let on_end = |id, _, ending| match ending {
            Ending::Stall(_) => self.stalled.notify_one(),
            Ending::Deadline if self.acting(&self.local()) && !planted(Bug::KeepLapsedClaim) => {
                tracing::warn!(partition = id, "a partition's claim lapsed while its node acts");
                self.orphaned.notify_one();
            }
            Ending::Deadline => {}
        };
        tokio::select! {
            biased;
            () = stop.cancelled() => {}
            () = self.partitions.enforce(on_end) => {}
        }
    }

    /// Checks right now that the partition `id` may still act under `token`: the node is
    /// within its deadline and not fenced, the partition was not lost and the process did not
    /// stall. `LeaseLost` otherwise. A partition stopped by a shutdown may still act until it
    /// returns.
    pub(crate) fn ensure_valid(&self, id: i64, token: FencingToken) -> Result<()> {
        let local = self.local();
        if !self.acting(&local) {
            return Err(Error::lease_lost(format!(
                "node {} must stop: no heartbeat was confirmed within {:?}, or it was fenced",
                self.config.node,
                self.config.act_for()
            )));
        }
        match self.partitions.get(&id) {
            Some(claim) if claim.token() == token => claim.ensure_valid(),
            _ => Err(partition_lost(id, token)),
        }
    }

    /// Records the progress of a running partition, for the next heartbeat.
    pub(crate) fn set_progress(&self, id: i64, progress: u64) {
        if let Some(held) = self.partitions.lock().get_mut(&id) {
            held.state.progress = progress;
        }
    }

    /// Marks a partition as lost: the store refused a write under its token.
    pub(crate) fn lost(&self, id: i64) {
        self.end(&[id], "the store refused a write under its token");
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
            self.partitions.lock().values().for_each(|held| held.state.stop.cancel());
            self.handlers.wait().await;
        }
    }
}
