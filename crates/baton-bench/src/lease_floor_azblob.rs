//! The Azure blob floor: the cycle as the service's plain lease actions on one blob (acquire
//! for 15 s, renew, release), one request each, sent by the Azure store's own client.
//!
//! baton's acquisition reads the lease blob, claims it under its ETag, acquires the lease under
//! the claim's ETag and confirms the term under the lease (four requests); its renewal reads
//! the blob, renews and records the renewal (three), its release reads, releases and records
//! the release (three).

use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::Duration;

use async_trait::async_trait;
use baton::azblob::BlobContainer;

use crate::lease_floor::{About, FloorLock, LeaseFloor};
use crate::lease_report::HandoverGoal;
use crate::writes::WriteCount;

/// The Azure blob floor; the handover goal is a waiter's retry period (the service has no
/// change feed), then its acquisition.
pub(crate) const ABOUT: About = About {
    store: "Azure Blob",
    operations: "acquire, renew, release",
    description: "The floor is the cycle as plain blob lease actions: acquire (15 s), renew, \
        release, one request each; baton's acquisition is a read, a claim under the ETag, the \
        lease under the claim's ETag and a confirming write (four requests), its renewal and \
        release a read, the lease action and a metadata write (three each).",
    handover: HandoverGoal { p50: None, p99: Duration::from_millis(1_300) },
};

/// The container of an `azblob://` URL.
pub(crate) struct AzblobFloor {
    url: String,
}

impl AzblobFloor {
    /// The floor of the container at `url`; connects nothing yet.
    pub(crate) fn new(url: &str) -> Self {
        AzblobFloor { url: url.to_string() }
    }
}

#[async_trait]
impl LeaseFloor for AzblobFloor {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    async fn open(&self, key: String) -> anyhow::Result<Box<dyn FloorLock>> {
        let container = BlobContainer::open(&self.url)?;
        let blob = format!("baton-bench/{key}");
        container.put_empty(&blob).await?;
        let mut hasher = DefaultHasher::new();
        key.hash(&mut hasher);
        let lease_id =
            format!("00000000-0000-4000-8000-{:012x}", hasher.finish() & 0xffff_ffff_ffff);
        Ok(Box::new(AzblobLock { container, blob, lease_id }))
    }

    async fn write_count(&self, _run: &str) -> anyhow::Result<Option<Box<dyn WriteCount>>> {
        Ok(None)
    }
}

/// One blob leased, renewed and released under one lease ID.
struct AzblobLock {
    container: BlobContainer,
    blob: String,
    lease_id: String,
}

#[async_trait]
impl FloorLock for AzblobLock {
    async fn acquire(&mut self) -> anyhow::Result<()> {
        let ttl = baton::azblob::MIN_TTL;
        Ok(self.container.acquire_lease(&self.blob, ttl, &self.lease_id, None).await?)
    }

    async fn renew(&mut self) -> anyhow::Result<()> {
        Ok(self.container.renew_lease(&self.blob, &self.lease_id).await?)
    }

    async fn release(&mut self) -> anyhow::Result<()> {
        Ok(self.container.release_lease(&self.blob, &self.lease_id).await?)
    }
}
