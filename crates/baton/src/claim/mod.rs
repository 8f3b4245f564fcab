//! One runtime for claimed work: a lease term, a claimed execution and a claimed partition
//! are the same thing seen from here, work held under a fencing token until a local deadline.
//!
//! A [`Claim`] carries the token, the deadline (the send time of its last confirmed call plus
//! how long a confirmation is good for, see [`baton_core::claim::Validity`]), a cancellation
//! that fires at the deadline, on a lost renewal or heartbeat, on a stall of the process and
//! when its owner stops or is dropped, and a synchronous [`Claim::ensure_valid`]. The claims
//! of one owner live in a [`Claims`] set, whose enforcer ends them at their deadlines and on a
//! stall. Store calls are bounded by the [`TimeLimit`] layer and by [`until`]; handlers run
//! panic-isolated by [`isolated`]. The elector, the scheduler's worker and the cluster's
//! worker keep only what differs between them: what they call the store for and what an
//! ended claim means to them.

mod bounded;
mod isolate;
mod set;
mod watchdog;

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use baton_core::claim::Validity;
use baton_core::{Error, FencingToken, Result};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

pub(crate) use bounded::{TimeLimit, until};
pub(crate) use isolate::isolated;
pub(crate) use set::{Claims, Ending};
pub(crate) use watchdog::Watchdog;

/// Work held under a fencing token until a local deadline.
pub(crate) struct Claim {
    /// What is held, for messages: `lease settlement`, `execution 42`, `partition 7`.
    what: String,
    token: FencingToken,
    validity: Mutex<Validity<Instant>>,
    ended: CancellationToken,
    end_reason: Mutex<Option<String>>,
    watchdog: Arc<Watchdog>,
}

impl fmt::Debug for Claim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Claim")
            .field("what", &self.what)
            .field("token", &self.token)
            .field("ended", &self.is_ended())
            .finish_non_exhaustive()
    }
}

impl Claim {
    /// A claim whose claiming call was sent at `sent`; `ended` is a child of its owner's stop
    /// token, so that stopping (or dropping) the owner ends it.
    pub(crate) fn new(
        what: String,
        token: FencingToken,
        sent: Instant,
        act_for: Duration,
        ended: CancellationToken,
        watchdog: Arc<Watchdog>,
    ) -> Self {
        Claim {
            what,
            token,
            validity: Mutex::new(Validity::new(sent, act_for)),
            ended,
            end_reason: Mutex::new(None),
            watchdog,
        }
    }

    /// The fencing token the claim is held under.
    pub(crate) fn token(&self) -> FencingToken {
        self.token
    }

    /// The local monotonic instant from which this process must not act under the claim.
    pub(crate) fn deadline(&self) -> Instant {
        self.validity.lock().unwrap_or_else(|e| e.into_inner()).deadline()
    }

    /// Records that the store confirmed the claim in a call sent at `sent`: the deadline moves
    /// to `sent` plus the validity, never backward. An ended claim stays ended.
    pub(crate) fn confirm(&self, sent: Instant) {
        self.validity.lock().unwrap_or_else(|e| e.into_inner()).confirm(sent);
    }

    /// Ends the claim, firing its cancellation; the first reason given is kept.
    pub(crate) fn end(&self, reason: impl Into<String>) {
        let mut slot = self.end_reason.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(reason.into());
        }
        drop(slot);
        self.ended.cancel();
    }

    /// Whether the claim has ended (the background view; see [`Claim::ensure_valid`]).
    pub(crate) fn is_ended(&self) -> bool {
        self.ended.is_cancelled()
    }

    /// Resolves when the claim ends.
    pub(crate) async fn ended(&self) {
        self.ended.cancelled().await;
    }

    /// The cancellation that fires when the claim ends, for work bound to it.
    pub(crate) fn cancellation(&self) -> &CancellationToken {
        &self.ended
    }

    /// Why the claim ended, if it has.
    pub(crate) fn end_reason(&self) -> Option<String> {
        let reason = self.end_reason.lock().unwrap_or_else(|e| e.into_inner()).clone();
        reason.or_else(|| self.is_ended().then(|| "its owner stopped".to_string()))
    }

    /// Whether this process may still act under the claim right now: it has not ended, its
    /// deadline has not passed and the process has not stalled. Checked synchronously, so a
    /// process resumed after a pause sees the loss before its next write even if no background
    /// task has run yet. `LeaseLost` otherwise.
    pub(crate) fn ensure_valid(&self) -> Result<()> {
        let now = Instant::now();
        let reason = if let Some(reason) = self.end_reason() {
            reason
        } else if now >= self.deadline() {
            "its deadline passed without a confirmed renewal".to_string()
        } else if let Some(stall) = self.watchdog.stalled_for(now) {
            format!("the process stalled for {stall:?}")
        } else {
            return Ok(());
        };
        Err(Error::lease_lost(format!(
            "{} (token {}) is no longer held: {reason}",
            self.what, self.token
        )))
    }
}
