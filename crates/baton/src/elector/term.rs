//! One term of leadership: a lease acquired under one token, until it ends.

use std::sync::Mutex;

use baton_core::{Error, FencingToken, LeaseName, Result};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::watchdog::Watchdog;

/// The state of one acquisition, shared by its guard, its handles and the renewer.
#[derive(Debug)]
pub(crate) struct Term {
    pub(crate) lease: LeaseName,
    pub(crate) token: FencingToken,
    /// The local monotonic instant after which this process must not act under the lease.
    deadline: Mutex<Instant>,
    ended: CancellationToken,
    end_reason: Mutex<Option<String>>,
}

impl Term {
    pub(crate) fn new(lease: LeaseName, token: FencingToken, deadline: Instant) -> Self {
        Term {
            lease,
            token,
            deadline: Mutex::new(deadline),
            ended: CancellationToken::new(),
            end_reason: Mutex::new(None),
        }
    }

    pub(crate) fn deadline(&self) -> Instant {
        *self.deadline.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Moves the deadline forward after a successful renewal (never backward).
    pub(crate) fn extend(&self, deadline: Instant) {
        let mut current = self.deadline.lock().unwrap_or_else(|e| e.into_inner());
        *current = (*current).max(deadline);
    }

    /// Ends the term; the first reason given is kept.
    pub(crate) fn end(&self, reason: impl Into<String>) {
        let mut slot = self.end_reason.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(reason.into());
        }
        drop(slot);
        self.ended.cancel();
    }

    pub(crate) fn is_ended(&self) -> bool {
        self.ended.is_cancelled()
    }

    pub(crate) async fn ended(&self) {
        self.ended.cancelled().await;
    }

    /// Whether this process may still act under the lease right now: the term has not ended,
    /// the deadline has not passed and the process has not stalled. Checked synchronously, so a
    /// process resumed after a pause sees the loss before its next write even if no background
    /// task has run yet.
    pub(crate) fn ensure_valid(&self, watchdog: &Watchdog) -> Result<()> {
        let now = Instant::now();
        let reason = if let Some(reason) =
            self.end_reason.lock().unwrap_or_else(|e| e.into_inner()).clone()
        {
            reason
        } else if now >= self.deadline() {
            "the renew deadline passed".to_string()
        } else if let Some(stall) = watchdog.stalled_for(now) {
            format!("the process stalled for {stall:?}")
        } else {
            return Ok(());
        };
        Err(Error::lease_lost(format!(
            "lease {} (token {}) is no longer held: {reason}",
            self.lease, self.token
        )))
    }
}
