//! The store's clock seen from this process: a reading of `now()` placed on the local monotonic
//! clock, so that handler start times can be compared with fire instants (store time) and the
//! parent can act at store instants.

use std::time::Duration;

use baton::StoreTime;
use baton::core::JobStore;
use tokio::time::Instant;

/// Readings taken; the one with the shortest round trip is kept.
const READINGS: usize = 5;

/// A reading of the store's clock against the local monotonic clock.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StoreClock {
    /// The store's time at `local`, in microseconds since the Unix epoch.
    store_us: i64,
    local: Instant,
    /// The round trip of the reading kept: the uncertainty of every estimate.
    pub(crate) round_trip: Duration,
}

impl StoreClock {
    /// Reads the store's clock a few times and keeps the reading with the shortest round trip,
    /// placed at its middle. The store answers whole milliseconds (truncated), so half a
    /// millisecond is added.
    pub(crate) async fn read(store: &dyn JobStore) -> baton::Result<StoreClock> {
        let mut best: Option<StoreClock> = None;
        for _ in 0..READINGS {
            let sent = Instant::now();
            let now = store.now().await?;
            let round_trip = sent.elapsed();
            let reading = StoreClock {
                store_us: now.as_millis() * 1000 + 500,
                local: sent + round_trip / 2,
                round_trip,
            };
            if best.is_none_or(|best| reading.round_trip < best.round_trip) {
                best = Some(reading);
            }
        }
        Ok(best.expect("at least one reading"))
    }

    /// The store's time now, in microseconds since the Unix epoch.
    pub(crate) fn now_us(&self) -> i64 {
        self.at_us(Instant::now())
    }

    /// The store's time at the local instant `at`, in microseconds since the Unix epoch.
    pub(crate) fn at_us(&self, at: Instant) -> i64 {
        let micros = |d: Duration| i64::try_from(d.as_micros()).unwrap_or(i64::MAX);
        if at >= self.local {
            self.store_us.saturating_add(micros(at - self.local))
        } else {
            self.store_us.saturating_sub(micros(self.local - at))
        }
    }

    /// The store's time now, to the millisecond.
    pub(crate) fn now(&self) -> StoreTime {
        StoreTime::from_millis(self.now_us().div_euclid(1000))
    }

    /// The local instant at which the store's clock shows `at` (now, if that has passed).
    pub(crate) fn local_instant(&self, at: StoreTime) -> Instant {
        let ahead = at.as_millis() * 1000 - self.now_us();
        Instant::now() + Duration::from_micros(u64::try_from(ahead).unwrap_or(0))
    }
}
