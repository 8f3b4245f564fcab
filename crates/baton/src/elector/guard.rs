//! What a leader holds: the owning [`LeaderGuard`] and cloneable [`LeaderHandle`]s.

use std::sync::Arc;

use baton_core::{FencingToken, LeaseName, Result};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::shared::Shared;
use crate::claim::Claim;

/// A cloneable view of one term of leadership, for tasks doing work under the lease.
#[derive(Debug, Clone)]
pub struct LeaderHandle {
    pub(crate) lease: LeaseName,
    pub(crate) term: Arc<Claim>,
    pub(crate) shared: Arc<Shared>,
}

impl LeaderHandle {
    /// The lease held.
    pub fn lease(&self) -> &LeaseName {
        &self.lease
    }

    /// The fencing token of this term; pass it with every write to a fenced resource.
    pub fn token(&self) -> FencingToken {
        self.term.token()
    }

    /// Resolves when the term ends: lost, past its deadline, stalled, released, or its
    /// elector shut down or dropped.
    pub async fn cancelled(&self) {
        self.term.ended().await;
    }

    /// A token cancelled when the term ends, to hand to the tasks that work under the lease
    /// (as [`JobContext::cancellation_token`](crate::scheduler::JobContext::cancellation_token)
    /// does for a job). It is a child of the term: cancelling it stops those tasks and leaves
    /// the term as it is.
    pub fn cancellation_token(&self) -> CancellationToken {
        self.term.cancellation().child_token()
    }

    /// Whether the term has ended (the background view; see [`LeaderHandle::ensure_valid`]).
    pub fn is_cancelled(&self) -> bool {
        self.term.is_ended()
    }

    /// The local monotonic instant after which this process must not act under the lease,
    /// unless a renewal moves it.
    pub fn deadline(&self) -> Instant {
        self.term.deadline()
    }

    /// Checks right now, without waiting for any background task, that the lease is still
    /// held: call it before every write. Fails with `LeaseLost` once the term ended, the
    /// deadline passed or the process stalled.
    pub fn ensure_valid(&self) -> Result<()> {
        self.term.ensure_valid()
    }
}

/// Proof of holding a lease. Dropping it releases the lease (in the background); prefer
/// [`LeaderGuard::release`] to learn the outcome.
#[derive(Debug)]
pub struct LeaderGuard {
    handle: LeaderHandle,
    released: bool,
}

impl LeaderGuard {
    pub(crate) fn new(lease: LeaseName, term: Arc<Claim>, shared: Arc<Shared>) -> Self {
        LeaderGuard { handle: LeaderHandle { lease, term, shared }, released: false }
    }

    /// A cloneable view of this term for other tasks.
    pub fn handle(&self) -> LeaderHandle {
        self.handle.clone()
    }

    /// Releases the lease now so the next contender takes over at once; returns whether the
    /// store still considered this term the holder.
    pub async fn release(mut self) -> Result<bool> {
        self.released = true;
        let LeaderHandle { lease, term, shared } = &self.handle;
        shared.step_down(lease, term, "released").await
    }
}

impl std::ops::Deref for LeaderGuard {
    type Target = LeaderHandle;

    fn deref(&self) -> &LeaderHandle {
        &self.handle
    }
}

impl Drop for LeaderGuard {
    fn drop(&mut self) {
        if !self.released {
            let LeaderHandle { lease, term, shared } = &self.handle;
            shared.step_down_in_background(lease.clone(), term.clone(), "guard dropped");
        }
    }
}
