//! Time in the simulation: the runtime's paused clock, read as the store's clock too.

use std::time::Duration;

use baton_core::StoreTime;
use baton_core::time::Clock;
use tokio::time::Instant;

/// The store's clock: milliseconds of virtual time since the simulation started, from the
/// run's epoch. Every latency and pause is a whole number of milliseconds, so no two events
/// the checks compare fall inside one millisecond by rounding.
#[derive(Debug, Clone, Copy)]
pub(super) struct VirtualClock {
    start: Instant,
    epoch: i64,
}

/// The instants a run may start at, one drawn for each seed: an ordinary night
/// (2026-01-01T00:00:00Z), and a minute before London's clocks go forward
/// (2026-03-29T01:00:00Z, 01:00 GMT becoming 02:00 BST) and back (2026-10-25T01:00:00Z,
/// 02:00 BST becoming 01:00 GMT).
pub(super) const EPOCHS: [i64; 3] = [1_767_225_600_000, 1_774_745_940_000, 1_792_889_940_000];

impl VirtualClock {
    /// A clock showing `epoch` (in milliseconds) now; call it inside the paused runtime.
    pub(super) fn start(epoch: i64) -> Self {
        VirtualClock { start: Instant::now(), epoch }
    }

    /// How long the simulation has run.
    pub(super) fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }
}

impl Clock for VirtualClock {
    fn now(&self) -> StoreTime {
        let millis = i64::try_from(self.elapsed().as_millis()).unwrap_or(i64::MAX);
        StoreTime::from_millis(self.epoch + millis)
    }
}
