//! The stall watchdog of one owner of claims: notices when this process did not run for
//! longer than a threshold (a SIGSTOP, a starved runtime, a suspended machine).

use std::sync::Mutex;
use std::time::Duration;

use baton_core::claim::StallDetector;
use tokio::time::Instant;

/// Remembers when the owner's enforcer last ran; a gap longer than the threshold is a stall.
#[derive(Debug)]
pub(crate) struct Watchdog(Mutex<StallDetector<Instant>>);

impl Watchdog {
    pub(crate) fn new(threshold: Duration) -> Self {
        Watchdog(Mutex::new(StallDetector::new(threshold, Instant::now())))
    }

    fn detector(&self) -> std::sync::MutexGuard<'_, StallDetector<Instant>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How often the watchdog must tick to notice a stall of its threshold.
    pub(crate) fn period(&self) -> Duration {
        self.detector().period()
    }

    /// Records a tick; returns the stall if the previous tick was longer ago than the threshold.
    pub(crate) fn tick(&self, now: Instant) -> Option<Duration> {
        self.detector().seen(now)
    }

    /// The current stall, if the last tick is longer ago than the threshold.
    pub(crate) fn stalled_for(&self, now: Instant) -> Option<Duration> {
        self.detector().stalled(now)
    }
}
