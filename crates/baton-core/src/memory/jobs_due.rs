//! Due wake-ups between tasks of one process.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use event_listener::Event;

use crate::error::Result;
use crate::job::DueChanges;

/// Counts the moments executions became due and wakes every subscriber at each.
///
/// Wake-ups coalesce: a subscriber that was not waiting sees one wake-up for any number of
/// signals since its last one, which is all a worker needs to claim again.
#[derive(Default)]
pub(super) struct DueSignal {
    generation: AtomicU64,
    raised: Event,
}

impl DueSignal {
    /// Wakes every subscriber.
    pub(super) fn raise(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.raised.notify(usize::MAX);
    }

    /// A feed that wakes at every signal raised from now on.
    pub(super) fn subscribe(self: &Arc<Self>) -> Box<dyn DueChanges> {
        let seen = self.generation.load(Ordering::SeqCst);
        Box::new(DueFeed { signal: Arc::clone(self), seen })
    }
}

struct DueFeed {
    signal: Arc<DueSignal>,
    seen: u64,
}

#[async_trait]
impl DueChanges for DueFeed {
    async fn next(&mut self) -> Result<()> {
        loop {
            let listener = self.signal.raised.listen();
            let generation = self.signal.generation.load(Ordering::SeqCst);
            if generation > self.seen {
                self.seen = generation;
                return Ok(());
            }
            listener.await;
        }
    }
}
