//! The stall watchdog: notices when this process did not run for longer than a threshold.

use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

/// Remembers when the watchdog last ran; a gap longer than the threshold is a stall.
#[derive(Debug)]
pub(crate) struct Watchdog {
    threshold: Duration,
    last_tick: Mutex<Instant>,
}

impl Watchdog {
    pub(crate) fn new(threshold: Duration) -> Self {
        Watchdog { threshold, last_tick: Mutex::new(Instant::now()) }
    }

    /// How often the watchdog must tick to notice a stall of `threshold`.
    pub(crate) fn period(&self) -> Duration {
        (self.threshold / 4).max(Duration::from_millis(5))
    }

    /// Records a tick; returns the stall if the previous tick was longer ago than the threshold.
    pub(crate) fn tick(&self, now: Instant) -> Option<Duration> {
        let mut last = self.last_tick.lock().unwrap_or_else(|e| e.into_inner());
        let gap = now.saturating_duration_since(*last);
        *last = now;
        (gap > self.threshold).then_some(gap)
    }

    /// The current stall, if the last tick is longer ago than the threshold.
    pub(crate) fn stalled_for(&self, now: Instant) -> Option<Duration> {
        let last = *self.last_tick.lock().unwrap_or_else(|e| e.into_inner());
        let gap = now.saturating_duration_since(last);
        (gap > self.threshold).then_some(gap)
    }
}
