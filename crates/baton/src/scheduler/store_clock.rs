//! Mapping store instants onto this process's monotonic clock, so the leader can sleep until
//! a fire is due on the store's clock.

use baton_core::{JobStore, Result, StoreTime};
use tokio::time::Instant;

/// A reading of the store's clock against the local monotonic clock.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StoreClock {
    store: StoreTime,
    local: Instant,
}

impl StoreClock {
    /// Reads the store's clock; the reading is placed at the middle of the round trip.
    pub(crate) async fn read(store: &dyn JobStore) -> Result<Self> {
        let sent = Instant::now();
        let store_now = store.now().await?;
        let answered = Instant::now();
        Ok(StoreClock::pairing(store_now, sent + (answered - sent) / 2))
    }

    /// A reading that the store's clock showed `store` at the local instant `local`.
    pub(crate) fn pairing(store: StoreTime, local: Instant) -> Self {
        StoreClock { store, local }
    }

    /// How long ago the reading was taken.
    pub(crate) fn age(&self) -> std::time::Duration {
        self.local.elapsed()
    }

    /// The store's time now, estimated from the reading.
    pub(crate) fn now(&self) -> StoreTime {
        self.store.saturating_add(self.local.elapsed())
    }

    /// The local instant at which the store's clock shows `at` (now, if that has passed).
    pub(crate) fn local_instant(&self, at: StoreTime) -> Instant {
        let ahead = at.saturating_since(self.now());
        Instant::now() + ahead
    }
}
