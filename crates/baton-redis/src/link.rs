//! The connection to the server: one multiplexed connection shared by every call, opened again
//! after a transport failure or a timeout, and behind Sentinel also after the server answered
//! `READONLY` or a failover was announced (the master is then looked up again). A failed command
//! is never sent again on its own: the error goes back to the caller, whose next call gets the
//! new connection.

use std::fmt::Display;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use baton_core::Result;
use redis::aio::MultiplexedConnection;
use redis::{AsyncConnectionConfig, Client, Cmd, FromRedisValue, Pipeline, RedisError};
use tokio::task::AbortHandle;

use crate::error::{connect_error, query_error};
use crate::options::RedisOptions;
use crate::sentinel;
use crate::url::{self, Sentinels, Target, Topology};

/// The current connection and a number telling it from the ones before.
type Current = Option<(u64, MultiplexedConnection)>;

/// The connection calls share, and a count of those opened so far.
#[derive(Default)]
pub(crate) struct Connections {
    current: Mutex<Current>,
    opened: AtomicU64,
}

impl Connections {
    fn lock(&self) -> std::sync::MutexGuard<'_, Current> {
        self.current.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Drops the current connection, whichever it is, so that the next call opens a new one.
    pub(crate) fn forget_all(&self) {
        *self.lock() = None;
    }
}

/// A server to talk to, through a connection opened on demand.
pub(crate) struct Link {
    pub(crate) target: Target,
    /// How a connection finds its server.
    route: Route,
    config: AsyncConnectionConfig,
    connect_timeout: std::time::Duration,
    connections: Arc<Connections>,
    /// The task that watches the sentinels for a failover, aborted with the link.
    watcher: Option<AbortHandle>,
}

/// How a connection finds its server.
enum Route {
    /// Straight to the server, through its client.
    Server(Client),
    /// To the master of the moment, through the sentinels.
    Sentinel(Sentinels),
}

impl Drop for Link {
    fn drop(&mut self) {
        if let Some(watcher) = &self.watcher {
            watcher.abort();
        }
    }
}

impl Link {
    /// A link to the target; no connection is opened yet. Behind Sentinel, starts watching
    /// the sentinels for failovers (on the current tokio runtime).
    pub(crate) fn new(target: Target, options: &RedisOptions) -> Result<Link> {
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(options.connect_timeout))
            .set_response_timeout(Some(options.response_timeout));
        let connections = Arc::new(Connections::default());
        let (route, watcher) = match &target.topology {
            Topology::Server => {
                let client = url::client(target.info.clone(), target.tls.as_ref())
                    .map_err(|err| connect_error(&target, &err))?;
                (Route::Server(client), None)
            }
            Topology::Sentinel(sentinels) => {
                let watch = sentinel::watch(
                    Arc::downgrade(&connections),
                    sentinels.clone(),
                    target.tls.clone(),
                    options.connect_timeout,
                );
                (Route::Sentinel(sentinels.clone()), Some(tokio::spawn(watch).abort_handle()))
            }
        };
        Ok(Link {
            target,
            route,
            config,
            connect_timeout: options.connect_timeout,
            connections,
            watcher,
        })
    }

    /// Sends one command and reads its answer.
    pub(crate) async fn command<T: FromRedisValue>(
        &self,
        command: &Cmd,
        action: impl Display,
    ) -> Result<T> {
        let mut pipeline = redis::pipe();
        pipeline.add_command(command.clone());
        self.pipeline(&pipeline, action).await.map(|(answer,)| answer)
    }

    /// Sends a pipeline of commands in one round trip and reads the answers not ignored.
    pub(crate) async fn pipeline<T: FromRedisValue>(
        &self,
        pipeline: &Pipeline,
        action: impl Display,
    ) -> Result<T> {
        let answer = self.send(pipeline).await?;
        answer.map_err(|err| query_error(&self.target, action, &err))
    }

    /// Sends a pipeline of commands in one round trip. The outer result says whether a
    /// connection could be had; the inner one is the server's answer or the failure as redis-rs
    /// reported it, for callers that look into it.
    pub(crate) async fn send<T: FromRedisValue>(
        &self,
        pipeline: &Pipeline,
    ) -> Result<std::result::Result<T, RedisError>> {
        let (number, mut connection) = self.connection().await?;
        let answer = pipeline.query_async(&mut connection).await;
        if let Err(err) = &answer
            && sentinel::lost_master(err)
        {
            self.forget(number);
        }
        Ok(answer)
    }

    /// A dedicated connection for a pub/sub subscription.
    pub(crate) async fn subscriber(&self) -> Result<redis::aio::PubSub> {
        let client = match &self.route {
            Route::Server(client) => client.clone(),
            Route::Sentinel(_) => self.open().await?.0,
        };
        let opening = tokio::time::timeout(self.connect_timeout, client.get_async_pubsub());
        match opening.await {
            Ok(opened) => opened.map_err(|err| connect_error(&self.target, &err)),
            Err(_) => {
                let err = RedisError::from(std::io::Error::from(std::io::ErrorKind::TimedOut));
                Err(connect_error(&self.target, &err))
            }
        }
    }

    /// The current connection, opened if there is none.
    async fn connection(&self) -> Result<(u64, MultiplexedConnection)> {
        if let Some(current) = self.connections.lock().clone() {
            return Ok(current);
        }
        let (_, connection) = self.open().await?;
        let number = self.connections.opened.fetch_add(1, Ordering::Relaxed) + 1;
        *self.connections.lock() = Some((number, connection.clone()));
        Ok((number, connection))
    }

    /// Opens a connection to the server, behind Sentinel to the master the sentinels name,
    /// and returns it with the client it came from.
    async fn open(&self) -> Result<(Client, MultiplexedConnection)> {
        match &self.route {
            Route::Server(client) => {
                let connection = client
                    .get_multiplexed_async_connection_with_config(&self.config)
                    .await
                    .map_err(|err| connect_error(&self.target, &err))?;
                Ok((client.clone(), connection))
            }
            Route::Sentinel(sentinels) => {
                let (master, connection) =
                    sentinel::find_master(self, sentinels, &self.target.info, &self.config).await?;
                tracing::debug!(master = %master.address, endpoint = %self.target.endpoint, "connected to the Redis master");
                Ok((master.client, connection))
            }
        }
    }

    /// Drops connection `number` (its transport failed or timed out, or the server is no longer
    /// the master), so that the next call opens a new one.
    fn forget(&self, number: u64) {
        let mut current = self.connections.lock();
        if current.as_ref().is_some_and(|(current, _)| *current == number) {
            *current = None;
        }
    }
}
