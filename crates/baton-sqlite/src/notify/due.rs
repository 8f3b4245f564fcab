//! The feed of "executions became due" wake-ups.

use async_trait::async_trait;
use baton_core::Result;
use baton_core::job::DueChanges;

use super::{DATAGRAM_BYTES, Subscription};

/// The datagram a due wake-up carries; its content is not otherwise read.
pub(crate) const DUE_PAYLOAD: &[u8] = b"due";

/// One process's feed of due wake-ups. Wake-ups that queued up while the worker was busy
/// are coalesced into one: a worker claims everything due at once anyway.
#[derive(Debug)]
pub(crate) struct DueSubscription(Subscription);

impl DueSubscription {
    /// Wraps a subscription bound in the due directory.
    pub(crate) fn new(subscription: Subscription) -> Self {
        DueSubscription(subscription)
    }
}

#[async_trait]
impl DueChanges for DueSubscription {
    async fn next(&mut self) -> Result<()> {
        let mut buf = [0u8; DATAGRAM_BYTES];
        self.0.recv(&mut buf).await?;
        self.0.drain();
        Ok(())
    }
}
