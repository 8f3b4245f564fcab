//! Feeds of plain wake-ups: executions became due, partitions became pending.

use async_trait::async_trait;
use baton_core::Result;
use baton_core::cluster::PendingChanges;
use baton_core::job::DueChanges;

use super::{DATAGRAM_BYTES, Subscription};

/// The datagram a wake-up carries; its content is not otherwise read.
pub(crate) const WAKE_UP: &[u8] = b"wake";

/// One process's feed of wake-ups from one directory. Wake-ups that queued up while the
/// subscriber was busy are coalesced into one: it claims everything there is at once anyway.
#[derive(Debug)]
pub(crate) struct WakeupSubscription(Subscription);

impl WakeupSubscription {
    /// Wraps a subscription bound in a wake-up directory.
    pub(crate) fn new(subscription: Subscription) -> Self {
        WakeupSubscription(subscription)
    }

    async fn wait(&mut self) -> Result<()> {
        let mut buf = [0u8; DATAGRAM_BYTES];
        self.0.recv(&mut buf).await?;
        self.0.drain();
        Ok(())
    }
}

#[async_trait]
impl DueChanges for WakeupSubscription {
    async fn next(&mut self) -> Result<()> {
        self.wait().await
    }
}

#[async_trait]
impl PendingChanges for WakeupSubscription {
    async fn next(&mut self) -> Result<()> {
        self.wait().await
    }
}
