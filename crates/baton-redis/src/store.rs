//! Connecting a Redis lease store: the URL, the server's checks, the scripts.

use std::sync::Arc;

use baton_core::Result;

use crate::keys::release_channel;
use crate::link::Link;
use crate::options::RedisOptions;
use crate::scripts::Scripts;
use crate::{server, url};

/// Leases kept in Redis: one hash per lease, judged by Lua scripts on the server's clock, with a
/// stream of leader changes per lease and pub/sub wake-ups on release.
///
/// Cheap to clone: clones share one connection. See the [crate documentation](crate) for what
/// Redis guarantees and what it cannot.
#[derive(Clone)]
pub struct RedisLeaseStore {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) link: Link,
    pub(crate) scripts: Scripts,
    pub(crate) history_length: u32,
    pub(crate) channel: String,
}

impl std::fmt::Debug for RedisLeaseStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisLeaseStore")
            .field("endpoint", &self.inner.link.target.endpoint)
            .finish_non_exhaustive()
    }
}

impl RedisLeaseStore {
    /// Connects to `redis://[user:password@]host:port[/db]`, or to the master of a Sentinel
    /// deployment, `redis+sentinel://[user:password@]host:port[,host:port…]/master[/db]`, with
    /// default [`RedisOptions`].
    ///
    /// Fails with one line, the password masked, if the URL is malformed or of another scheme
    /// (TLS, several hosts without Sentinel), the server cannot be reached or found through the
    /// sentinels, refuses the credentials or the database index, is older than Redis 5.0, or
    /// runs as a cluster or is a sentinel given as `redis://`. Nothing is written to the dataset.
    pub async fn connect(url: &str) -> Result<RedisLeaseStore> {
        RedisLeaseStore::connect_with(url, RedisOptions::default()).await
    }

    /// Connects with the given options; see [`connect`](Self::connect).
    pub async fn connect_with(url: &str, options: RedisOptions) -> Result<RedisLeaseStore> {
        let link = Link::new(url::parse(url)?, &options)?;
        let info: String =
            link.command(redis::cmd("INFO").arg("server"), "checking the server").await?;
        server::check(&info, &link.target.endpoint)?;
        let scripts = Scripts::load(&link).await?;
        let channel = release_channel(link.target.db());
        let history_length = options.history_length;
        Ok(RedisLeaseStore { inner: Arc::new(Inner { link, scripts, history_length, channel }) })
    }
}
