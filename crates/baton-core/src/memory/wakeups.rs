//! Wake-ups between tasks of one process: executions became due, partitions became pending.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use event_listener::Event;

use crate::cluster::PendingChanges;
use crate::error::Result;
use crate::job::DueChanges;

/// Counts the moments something happened and wakes every subscriber at each.
///
/// Wake-ups coalesce: a subscriber that was not waiting sees one wake-up for any number of
/// signals since its last one, which is all a worker needs to claim again.
#[derive(Default)]
pub(super) struct Wakeups {
    generation: AtomicU64,
    raised: Event,
}

impl Wakeups {
    /// Wakes every subscriber.
    pub(super) fn raise(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.raised.notify(usize::MAX);
    }

    /// A feed that wakes at every signal raised from now on.
    pub(super) fn subscribe(self: &Arc<Self>) -> WakeupFeed {
        let seen = self.generation.load(Ordering::SeqCst);
        WakeupFeed { wakeups: Arc::clone(self), seen }
    }
}

/// One subscriber's view of a [`Wakeups`].
pub(super) struct WakeupFeed {
    wakeups: Arc<Wakeups>,
    seen: u64,
}

impl WakeupFeed {
    async fn wait(&mut self) {
        loop {
            let listener = self.wakeups.raised.listen();
            let generation = self.wakeups.generation.load(Ordering::SeqCst);
            if generation > self.seen {
                self.seen = generation;
                return;
            }
            listener.await;
        }
    }
}

#[async_trait]
impl DueChanges for WakeupFeed {
    async fn next(&mut self) -> Result<()> {
        self.wait().await;
        Ok(())
    }
}

#[async_trait]
impl PendingChanges for WakeupFeed {
    async fn next(&mut self) -> Result<()> {
        self.wait().await;
        Ok(())
    }
}
