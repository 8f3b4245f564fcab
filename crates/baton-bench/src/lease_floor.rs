//! The floor of a lease-only store: the acquire → renew → release cycle as a plain lock on that
//! store sends it, from the client library baton's backend uses, on connections of its own.
//!
//! A store plugs into `baton bench lease` with a [`LeaseFloor`] (its [`About`], how to open one
//! floor lock, and a count of its writes if it keeps one) and a line in [`STORES`], which also
//! lists it in the help; the timing is shared here.

use std::time::{Duration, Instant};

use async_trait::async_trait;

use crate::lease_report::HandoverGoal;
use crate::timed::{self, Measured, OpKind, Sample, Samples, Window};
use crate::writes::WriteCount;
use crate::{
    lease_floor_azblob, lease_floor_consul, lease_floor_dynamodb, lease_floor_etcd,
    lease_floor_kube, lease_floor_redis, lease_floor_zk,
};

/// What a floor is and what its store is judged by.
#[derive(Debug)]
pub(crate) struct About {
    /// The store's name in the report, such as `Redis`.
    pub(crate) store: &'static str,
    /// The floor's three operations, as the table's label shows them.
    pub(crate) operations: &'static str,
    /// What the floor sends, against what baton sends, for the report's header.
    pub(crate) description: &'static str,
    /// What a graceful handover should take on this store.
    pub(crate) handover: HandoverGoal,
}

/// A lease-only store's floor.
#[async_trait]
pub(crate) trait LeaseFloor: Send + Sync {
    /// What the floor is and what the store is judged by.
    fn about(&self) -> &'static About;
    /// Opens a floor lock on `key` with a connection of its own.
    async fn open(&self, key: String) -> anyhow::Result<Box<dyn FloorLock>>;
    /// A counter of the store's write transactions for the idle scenario, if it has one.
    async fn write_count(&self, run: &str) -> anyhow::Result<Option<Box<dyn WriteCount>>>;
}

/// One plain lock on one key: each call is one operation of the floor's cycle.
#[async_trait]
pub(crate) trait FloorLock: Send {
    /// Takes the key, which must be free.
    async fn acquire(&mut self) -> anyhow::Result<()>;
    /// Extends the key's life.
    async fn renew(&mut self) -> anyhow::Result<()>;
    /// Frees the key.
    async fn release(&mut self) -> anyhow::Result<()>;
}

/// A lease-only store `baton bench lease` measures.
struct Store {
    /// What its floor is; its `store` names it in the help.
    about: &'static About,
    /// The schemes of its URLs.
    schemes: &'static [&'static str],
    /// Its URLs as the help shows them.
    urls: &'static str,
    /// Its floor at a URL of one of `schemes`; connects nothing yet.
    floor: fn(&str) -> anyhow::Result<Box<dyn LeaseFloor>>,
}

/// Every lease-only store `baton bench lease` measures, in the order the help lists them.
const STORES: &[Store] = &[
    Store {
        about: &lease_floor_redis::ABOUT,
        schemes: &["redis", "rediss", "redis+sentinel", "rediss+sentinel"],
        urls: "redis://, rediss://, redis+sentinel://",
        floor: |url| Ok(Box::new(lease_floor_redis::RedisFloor::new(url)?)),
    },
    Store {
        about: &lease_floor_etcd::ABOUT,
        schemes: &["etcd", "etcds"],
        urls: "etcd://HOST:PORT[,HOST:PORT…], etcds:// with TLS",
        floor: |url| Ok(Box::new(lease_floor_etcd::EtcdFloor::new(url))),
    },
    Store {
        about: &lease_floor_zk::ABOUT,
        schemes: &["zk"],
        urls: "zk://",
        floor: |url| Ok(Box::new(lease_floor_zk::ZkFloor::new(url)?)),
    },
    Store {
        about: &lease_floor_kube::ABOUT,
        schemes: &["kube"],
        urls: "kube://NAMESPACE",
        floor: |url| Ok(Box::new(lease_floor_kube::KubeFloor::new(url))),
    },
    Store {
        about: &lease_floor_consul::ABOUT,
        schemes: &["consul"],
        urls: "consul://HOST:PORT",
        floor: |url| Ok(Box::new(lease_floor_consul::ConsulFloor::new(url))),
    },
    Store {
        about: &lease_floor_dynamodb::ABOUT,
        schemes: &["dynamodb"],
        urls: "dynamodb://TABLE?region=REGION",
        floor: |url| Ok(Box::new(lease_floor_dynamodb::DynamoDbFloor::new(url))),
    },
    Store {
        about: &lease_floor_azblob::ABOUT,
        schemes: &["azblob"],
        urls: "azblob://ACCOUNT/CONTAINER",
        floor: |url| Ok(Box::new(lease_floor_azblob::AzblobFloor::new(url))),
    },
];

/// The floor of the lease-only store at `url`.
pub(crate) fn for_url(url: &str) -> anyhow::Result<Box<dyn LeaseFloor>> {
    let scheme = url.split_once("://").map_or(url, |(scheme, _)| scheme);
    match STORES.iter().find(|store| store.schemes.contains(&scheme)) {
        Some(store) => (store.floor)(url),
        None => anyhow::bail!("no lease floor for {}", baton::redact(url)),
    }
}

/// The help of `baton bench lease --backend`: the stores for everything, then each of
/// [`STORES`].
pub(crate) fn backend_help() -> String {
    let mut stores: Vec<String> =
        STORES.iter().map(|store| format!("{} ({})", store.about.store, store.urls)).collect();
    let last = stores.pop().unwrap_or_default();
    format!(
        "Backend URL: sqlite://PATH, postgres://USER@HOST:PORT/DB, mysql://USER@HOST:PORT/DB, or \
         a lease-only store: {} or {last}.",
        stores.join(", ")
    )
}

/// `clients` floor locks, each cycling on a key of its own for `length`.
pub(crate) async fn cycles(
    floor: &dyn LeaseFloor,
    run: &str,
    clients: usize,
    length: Duration,
) -> anyhow::Result<Measured> {
    let mut locks = Vec::with_capacity(clients);
    for i in 0..clients {
        locks.push(floor.open(format!("baton-bench-{run}-floor{clients}-{i}")).await?);
    }
    let window = Window::open(length);
    let workers = locks.into_iter().map(|lock| tokio::spawn(cycle(lock, window))).collect();
    let parts = timed::join_all(workers).await?;
    Ok(Measured { samples: Samples::new(parts, length), ..Measured::default() })
}

async fn cycle(mut lock: Box<dyn FloorLock>, window: Window) -> anyhow::Result<Vec<Sample>> {
    let mut samples = Vec::new();
    while window.is_open() {
        let began = Instant::now();
        lock.acquire().await?;
        samples.push(window.sample(OpKind::Acquire, began));
        let began = Instant::now();
        lock.renew().await?;
        samples.push(window.sample(OpKind::Renew, began));
        let began = Instant::now();
        lock.release().await?;
        samples.push(window.sample(OpKind::Release, began));
    }
    Ok(samples)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_store_is_lease_only_and_in_the_help() {
        let help = backend_help();
        for store in STORES {
            assert!(help.contains(&format!("{} ({})", store.about.store, store.urls)), "{help}");
            assert!(
                store.schemes.iter().any(|scheme| store.urls.starts_with(&format!("{scheme}://"))),
                "{} shows a URL of its own",
                store.about.store
            );
            for scheme in store.schemes {
                let kind = baton::url_kind(&format!("{scheme}://host")).expect("a known scheme");
                assert_eq!(kind, baton::UrlKind::LeasesOnly, "{scheme}://");
            }
        }
    }
}
