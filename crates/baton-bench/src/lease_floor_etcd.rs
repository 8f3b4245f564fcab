//! The etcd floor: the cycle as plain one-key transactions (put if absent, put if unchanged,
//! delete if unchanged), one request each, sent by the etcd store's own client on a connection
//! of its own per lock.
//!
//! The floor's transactions compare and write one key; baton's acquisition compares five keys
//! and writes four (record, holder key, index key, history) with a keep-alive of the holder's
//! etcd lease beside it, its renewal reads the holder's index, records the renewal once per etcd
//! lease and keeps the etcd leases alive, and its release deletes two keys and writes one.

use std::time::Duration;

use async_trait::async_trait;
use baton::etcd::EtcdLeaseStore;

use crate::lease_floor::{About, FloorLock, LeaseFloor};
use crate::lease_report::HandoverGoal;
use crate::writes::WriteCount;

/// The etcd floor; the handover goal is a watch firing on the release and one more
/// transaction taking the lease.
pub(crate) const ABOUT: About = About {
    store: "etcd",
    operations: "one-key txn ×3",
    description: "The floor is the cycle as plain one-key transactions: put if absent, put if \
        unchanged, delete if unchanged, one request each; baton's is one transaction each (with a \
        keep-alive beside the acquisition and the renewal).",
    handover: HandoverGoal { p50: None, p99: Duration::from_millis(20) },
};

/// The etcd cluster of an `etcd://` or `etcds://` URL.
pub(crate) struct EtcdFloor {
    url: String,
}

impl EtcdFloor {
    /// The floor of the cluster at `url`; connects nothing yet.
    pub(crate) fn new(url: &str) -> Self {
        EtcdFloor { url: url.to_string() }
    }
}

#[async_trait]
impl LeaseFloor for EtcdFloor {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    async fn open(&self, key: String) -> anyhow::Result<Box<dyn FloorLock>> {
        let store = EtcdLeaseStore::connect(&self.url).await?;
        Ok(Box::new(EtcdLock { store, key: format!("baton-bench/{key}"), revision: 0 }))
    }

    async fn write_count(&self, _run: &str) -> anyhow::Result<Option<Box<dyn WriteCount>>> {
        let store = EtcdLeaseStore::connect(&self.url).await?;
        Ok(Some(Box::new(RevisionCount { store })))
    }
}

/// A key written with compare-and-set transactions on its modification revision.
struct EtcdLock {
    store: EtcdLeaseStore,
    key: String,
    /// The key's modification revision after the last write; 0 while it is absent.
    revision: i64,
}

#[async_trait]
impl FloorLock for EtcdLock {
    async fn acquire(&mut self) -> anyhow::Result<()> {
        let created = self.store.compare_and_set(&self.key, 0, Some(b"bench")).await?;
        self.revision =
            created.ok_or_else(|| anyhow::anyhow!("the floor's key {} was taken", self.key))?;
        Ok(())
    }

    async fn renew(&mut self) -> anyhow::Result<()> {
        let renewed = self.store.compare_and_set(&self.key, self.revision, Some(b"bench")).await?;
        self.revision =
            renewed.ok_or_else(|| anyhow::anyhow!("the floor's key {} changed", self.key))?;
        Ok(())
    }

    async fn release(&mut self) -> anyhow::Result<()> {
        let deleted = self.store.compare_and_set(&self.key, self.revision, None).await?;
        anyhow::ensure!(deleted.is_some(), "the floor's key {} changed", self.key);
        self.revision = 0;
        Ok(())
    }
}

/// etcd's revision, which every write transaction raises by one.
struct RevisionCount {
    store: EtcdLeaseStore,
}

#[async_trait]
impl WriteCount for RevisionCount {
    async fn writes_now(&mut self) -> anyhow::Result<u64> {
        Ok(u64::try_from(self.store.revision().await?).unwrap_or(0))
    }

    fn label(&self) -> &'static str {
        "write transactions (etcd revisions)"
    }
}
