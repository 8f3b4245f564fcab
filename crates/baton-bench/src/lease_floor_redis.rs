//! The Redis floor: the cycle a plain Redis lock sends (`SET NX PX`, `PEXPIRE`, `DEL`, one round
//! trip each) from the client library baton's backend uses, one multiplexed connection per lock.
//!
//! Its renewal and release check nothing (a real lock would compare the holder first), so the
//! floor is a little faster than any correct lock: the ratio errs against baton.

use std::time::Duration;

use async_trait::async_trait;
use redis::aio::MultiplexedConnection;

use crate::lease_floor::{About, FloorLock, LeaseFloor};
use crate::lease_report::HandoverGoal;
use crate::writes::WriteCount;

/// The Redis floor; the handover goal is what the best Redis locks reach on loopback.
pub(crate) const ABOUT: About = About {
    store: "Redis",
    operations: "SET NX PX / PEXPIRE / DEL",
    description: "The floor is the cycle a plain Redis lock sends: SET NX PX, PEXPIRE, DEL, one round trip \
        each; baton's is one script call (EVALSHA) each.",
    handover: HandoverGoal { p50: Some(Duration::from_micros(700)), p99: Duration::from_millis(1) },
};
/// The floor's lock TTL, in milliseconds: the leases' own.
const TTL_MS: u64 = crate::client::TTL.as_millis() as u64;

/// The Redis server of a `redis://` URL.
pub(crate) struct RedisFloor {
    client: redis::Client,
}

impl RedisFloor {
    /// The floor of the server at `url`; connects nothing yet.
    pub(crate) fn new(url: &str) -> anyhow::Result<Self> {
        Ok(RedisFloor { client: redis::Client::open(url)? })
    }
}

#[async_trait]
impl LeaseFloor for RedisFloor {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    async fn open(&self, key: String) -> anyhow::Result<Box<dyn FloorLock>> {
        let connection = self.client.get_multiplexed_async_connection().await?;
        Ok(Box::new(RedisLock { connection, key }))
    }

    async fn write_count(&self, _run: &str) -> anyhow::Result<Option<Box<dyn WriteCount>>> {
        Ok(None)
    }
}

/// A key locked and unlocked with plain commands.
struct RedisLock {
    connection: MultiplexedConnection,
    key: String,
}

#[async_trait]
impl FloorLock for RedisLock {
    async fn acquire(&mut self) -> anyhow::Result<()> {
        let set: Option<String> = redis::cmd("SET")
            .arg(&self.key)
            .arg("bench")
            .arg("NX")
            .arg("PX")
            .arg(TTL_MS)
            .query_async(&mut self.connection)
            .await?;
        anyhow::ensure!(set.is_some(), "the floor's key {} was taken", self.key);
        Ok(())
    }

    async fn renew(&mut self) -> anyhow::Result<()> {
        let renewed: bool = redis::cmd("PEXPIRE")
            .arg(&self.key)
            .arg(TTL_MS)
            .query_async(&mut self.connection)
            .await?;
        anyhow::ensure!(renewed, "the floor's key {} vanished", self.key);
        Ok(())
    }

    async fn release(&mut self) -> anyhow::Result<()> {
        let deleted: u32 =
            redis::cmd("DEL").arg(&self.key).query_async(&mut self.connection).await?;
        anyhow::ensure!(deleted == 1, "the floor's key {} vanished", self.key);
        Ok(())
    }
}
