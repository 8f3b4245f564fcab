//! Counting a store's write transactions on the store's side, before and after a measurement.

use async_trait::async_trait;

/// A store's own count of the write transactions it has made, by every client.
#[async_trait]
pub(crate) trait WriteCount: Send {
    /// The count now; only differences between two readings mean anything.
    async fn writes_now(&mut self) -> anyhow::Result<u64>;
    /// What is counted, for the report.
    fn label(&self) -> &'static str;
}
