//! The Consul floor: the cycle as a plain Consul lock, sent by the Consul store's own client:
//! a session created and the key acquired with it, the session renewed, the key released and
//! the session destroyed.
//!
//! baton's acquisition is a read, a session, the acquiring write, a read of the token and the
//! write recording it; its renewal is the session's renewal and the record's write; its release
//! reads the agent's clock, releases the key and destroys the session.

use std::time::Duration;

use async_trait::async_trait;
use baton::LeaseStore;
use baton::consul::{ConsulLeaseStore, PlainLock};

use crate::lease_floor::{About, FloorLock, LeaseFloor};
use crate::lease_report::HandoverGoal;
use crate::writes::WriteCount;

/// The Consul floor; the handover goal is a blocking query's answer on the release, then the
/// acquisition's five requests.
pub(crate) const ABOUT: About = About {
    store: "Consul",
    operations: "session + acquire, renew, release + destroy",
    description: "The floor is a plain Consul lock: a session created and the key acquired \
        with it, the session renewed, the key released and the session destroyed (two, one and \
        two requests); baton's acquisition is a read, a session, the acquiring write, a read of \
        the token and the write recording it, its renewal the session's renewal and the \
        record's write, its release a read of the clock, the release and the destroy.",
    handover: HandoverGoal { p50: None, p99: Duration::from_millis(50) },
};

/// The agent of a `consul://` URL.
pub(crate) struct ConsulFloor {
    url: String,
}

impl ConsulFloor {
    /// The floor of the agent at `url`; connects nothing yet.
    pub(crate) fn new(url: &str) -> Self {
        ConsulFloor { url: url.to_string() }
    }
}

#[async_trait]
impl LeaseFloor for ConsulFloor {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    async fn open(&self, key: String) -> anyhow::Result<Box<dyn FloorLock>> {
        let store = ConsulLeaseStore::connect(&self.url).await?;
        let ttl = store.capabilities().ttls.nearest(crate::client::TTL);
        Ok(Box::new(ConsulLock { store, key, ttl, lock: None }))
    }

    async fn write_count(&self, _run: &str) -> anyhow::Result<Option<Box<dyn WriteCount>>> {
        Ok(None)
    }
}

/// One key locked by a session of its own.
struct ConsulLock {
    store: ConsulLeaseStore,
    key: String,
    /// The session's TTL: the leases' own, as the store grants it.
    ttl: Duration,
    /// The lock while it is held.
    lock: Option<PlainLock>,
}

#[async_trait]
impl FloorLock for ConsulLock {
    async fn acquire(&mut self) -> anyhow::Result<()> {
        self.lock = Some(self.store.plain_lock(&self.key, self.ttl).await?);
        Ok(())
    }

    async fn renew(&mut self) -> anyhow::Result<()> {
        let lock = self.lock.as_ref().ok_or_else(|| anyhow::anyhow!("renewing a free lock"))?;
        Ok(lock.renew().await?)
    }

    async fn release(&mut self) -> anyhow::Result<()> {
        let lock = self.lock.take().ok_or_else(|| anyhow::anyhow!("releasing a free lock"))?;
        Ok(lock.release().await?)
    }
}
