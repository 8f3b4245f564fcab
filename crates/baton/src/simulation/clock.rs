//! Time in the simulation: the runtime's paused clock, read as the store's clock too.

use std::time::Duration;

use baton_core::StoreTime;
use baton_core::time::Clock;
use tokio::time::Instant;

/// The store's clock: milliseconds of virtual time since the simulation started, from a fixed
/// epoch. Every latency and pause is a whole number of milliseconds, so no two events the
/// checks compare fall inside one millisecond by rounding.
#[derive(Debug, Clone, Copy)]
pub(super) struct VirtualClock {
    start: Instant,
}

/// 2026-01-01T00:00:00Z.
const EPOCH_MILLIS: i64 = 1_767_225_600_000;

impl VirtualClock {
    /// A clock starting now (call it inside the paused runtime).
    pub(super) fn start() -> Self {
        VirtualClock { start: Instant::now() }
    }

    /// How long the simulation has run.
    pub(super) fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }
}

impl Clock for VirtualClock {
    fn now(&self) -> StoreTime {
        let millis = i64::try_from(self.elapsed().as_millis()).unwrap_or(i64::MAX);
        StoreTime::from_millis(EPOCH_MILLIS + millis)
    }
}
