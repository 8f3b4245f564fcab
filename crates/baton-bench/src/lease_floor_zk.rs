//! The ZooKeeper floor: a plain create / setData / delete cycle of one ephemeral node (standing
//! for acquire, renew and release), one request each, from the client library baton's backend
//! uses, each lock on a session of its own. Nothing is conditional on a version, so the floor
//! is a little faster than any correct lock: the ratio errs against baton.
//!
//! The idle scenario counts ZooKeeper's write transactions by the zxid: every transaction takes
//! the next one, so the zxid of a write of the counter's own, less the counter's writes, counts
//! everyone else's.

use std::time::Duration;

use async_trait::async_trait;
use zookeeper_client::{Acls, Client, CreateMode, CreateOptions};

use crate::lease_floor::{About, FloorLock, LeaseFloor};
use crate::lease_report::HandoverGoal;
use crate::writes::WriteCount;

/// The ZooKeeper floor; the handover goal is a watch firing on the release and one more request
/// taking the lease, at the pace of the ensemble's log writes.
pub(crate) const ABOUT: About = About {
    store: "ZooKeeper",
    operations: "create / setData / delete",
    description: "The floor is a plain create / setData / delete cycle of one ephemeral node, one request \
        each; baton's acquire, renew and release are one conditional multi-operation each (an \
        acquisition reads the lease first unless this process last saw it free).",
    handover: HandoverGoal { p50: None, p99: Duration::from_millis(20) },
};

/// The ensemble of a `zk://[USER:PASSWORD@]HOST:PORT[,…][/CHROOT][?…]` URL.
pub(crate) struct ZkFloor {
    /// Members and chroot, as the client library takes them.
    cluster: String,
    /// `USER:PASSWORD` for digest authentication.
    digest: Option<String>,
}

impl ZkFloor {
    /// The floor of the ensemble at `url`; connects nothing yet. The URL's query (the session
    /// timeout baton asks for) does not apply to the floor's short sessions.
    pub(crate) fn new(url: &str) -> anyhow::Result<Self> {
        let rest = url.strip_prefix("zk://").ok_or_else(|| anyhow::anyhow!("not a zk:// URL"))?;
        let rest = rest.split_once('?').map_or(rest, |(rest, _)| rest);
        let (digest, cluster) = match rest.rsplit_once('@') {
            Some((user_info, cluster)) => (Some(user_info.to_string()), cluster),
            None => (None, rest),
        };
        Ok(ZkFloor { cluster: cluster.to_string(), digest })
    }

    async fn session(&self) -> anyhow::Result<Client> {
        let mut connector = Client::connector();
        if let Some(digest) = &self.digest {
            connector = connector.with_auth("digest", digest.as_bytes());
        }
        Ok(connector.connect(&self.cluster).await?)
    }

    fn options(&self, mode: CreateMode) -> CreateOptions<'static> {
        match self.digest {
            Some(_) => mode.with_acls(Acls::creator_all()),
            None => mode.with_acls(Acls::anyone_all()),
        }
    }
}

#[async_trait]
impl LeaseFloor for ZkFloor {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    async fn open(&self, key: String) -> anyhow::Result<Box<dyn FloorLock>> {
        let client = self.session().await?;
        Ok(Box::new(ZkLock {
            client,
            path: format!("/{key}"),
            options: self.options(CreateMode::Ephemeral),
        }))
    }

    async fn write_count(&self, run: &str) -> anyhow::Result<Option<Box<dyn WriteCount>>> {
        let client = self.session().await?;
        let path = format!("/baton-bench-{run}-zxid");
        client.create(&path, b"", &self.options(CreateMode::Ephemeral)).await?;
        Ok(Some(Box::new(ZxidCount { client, path, issued: 0 })))
    }
}

/// One ephemeral node created, touched and deleted.
struct ZkLock {
    client: Client,
    path: String,
    options: CreateOptions<'static>,
}

#[async_trait]
impl FloorLock for ZkLock {
    async fn acquire(&mut self) -> anyhow::Result<()> {
        self.client.create(&self.path, b"", &self.options).await?;
        Ok(())
    }

    async fn renew(&mut self) -> anyhow::Result<()> {
        self.client.set_data(&self.path, b"", None).await?;
        Ok(())
    }

    async fn release(&mut self) -> anyhow::Result<()> {
        Ok(self.client.delete(&self.path, None).await?)
    }
}

/// ZooKeeper's write transactions, read from the zxid of a write to an ephemeral node of the
/// counter's own session (which goes with the session).
struct ZxidCount {
    client: Client,
    path: String,
    /// Writes the counter made, each taking a zxid of its own.
    issued: i64,
}

#[async_trait]
impl WriteCount for ZxidCount {
    async fn writes_now(&mut self) -> anyhow::Result<u64> {
        let stat = self.client.set_data(&self.path, b"", None).await?;
        self.issued += 1;
        Ok(u64::try_from(stat.mzxid - self.issued).unwrap_or(0))
    }

    fn label(&self) -> &'static str {
        "ZooKeeper write transactions (zxids taken)"
    }
}
