//! The claim loop's feed of "partitions became pending" wake-ups: subscribed before a claim,
//! and again at the claim after it broke; without one the loop polls.

use baton_core::cluster::{ClusterStore, PendingChanges};

/// A subscription to the store's pending-partition wake-ups, if it has one.
#[derive(Default)]
pub(super) struct PendingFeed {
    feed: Option<Box<dyn PendingChanges>>,
    /// The store cannot notify: the loop only polls.
    unsupported: bool,
}

impl PendingFeed {
    /// Subscribes unless subscribed already or the store cannot notify; a failure is logged
    /// and tried again at the next call.
    pub(super) async fn subscribe(&mut self, store: &dyn ClusterStore) {
        if self.feed.is_some() || self.unsupported {
            return;
        }
        match store.subscribe_pending().await {
            Ok(Some(feed)) => self.feed = Some(feed),
            Ok(None) => self.unsupported = true,
            Err(err) => tracing::warn!(%err, "cannot subscribe to pending partitions; polling"),
        }
    }

    /// Waits for the next wake-up. Without a feed it never returns; a feed that breaks is
    /// dropped, and the wait goes on without one, so that the loop polls until it subscribes
    /// again.
    pub(super) async fn next(&mut self) {
        if let Some(feed) = &mut self.feed {
            match feed.next().await {
                Ok(()) => return,
                Err(err) => {
                    tracing::warn!(%err, "the pending-partition feed broke; polling");
                    self.feed = None;
                }
            }
        }
        std::future::pending().await
    }
}
