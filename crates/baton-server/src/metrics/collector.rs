//! The store-derived part of a scrape, and what it remembers from one scrape to the next.

use baton::Backend;
use tokio::sync::Mutex;

use super::exposition::Exposition;
use super::leaders::LeaderMemory;

/// Reads the stores at scrape time with bounded queries and renders what they show.
#[derive(Debug, Default)]
pub(crate) struct Collector {
    leaders: Mutex<LeaderMemory>,
}

impl Collector {
    /// The store-derived metrics, in the Prometheus text format.
    pub async fn collect(&self, backend: &Backend) -> baton::Result<String> {
        let mut out = Exposition::default();
        self.leaders.lock().await.collect(&*backend.leases(), &mut out).await?;
        super::cluster::collect(&*backend.cluster(), &mut out).await?;
        Ok(out.finish())
    }
}
