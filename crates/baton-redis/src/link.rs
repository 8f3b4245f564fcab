//! The connection to the server: one multiplexed connection shared by every call, opened again
//! after a transport failure or a timeout. A failed command is never sent again on its own: the
//! error goes back to the caller, whose next call gets the new connection.

use std::fmt::Display;
use std::sync::Mutex;

use baton_core::Result;
use redis::aio::MultiplexedConnection;
use redis::{AsyncConnectionConfig, Client, Cmd, FromRedisValue, Pipeline, RedisError};

use crate::error::{connect_error, query_error};
use crate::options::RedisOptions;
use crate::url::Target;

/// The current connection and a number telling it from the ones before.
type Current = Option<(u64, MultiplexedConnection)>;

/// A server to talk to, through a connection opened on demand.
pub(crate) struct Link {
    pub(crate) target: Target,
    client: Client,
    config: AsyncConnectionConfig,
    connect_timeout: std::time::Duration,
    current: Mutex<Current>,
    opened: std::sync::atomic::AtomicU64,
}

impl Link {
    /// A link to the target; no connection is opened yet.
    pub(crate) fn new(target: Target, options: &RedisOptions) -> Result<Link> {
        let client =
            Client::open(target.info.clone()).map_err(|err| connect_error(&target, &err))?;
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(options.connect_timeout))
            .set_response_timeout(Some(options.response_timeout));
        Ok(Link {
            target,
            client,
            config,
            connect_timeout: options.connect_timeout,
            current: Mutex::default(),
            opened: Default::default(),
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
            && (err.is_io_error() || err.is_unrecoverable_error())
        {
            self.forget(number);
        }
        Ok(answer)
    }

    /// A dedicated connection for a pub/sub subscription.
    pub(crate) async fn subscriber(&self) -> Result<redis::aio::PubSub> {
        let opening = tokio::time::timeout(self.connect_timeout, self.client.get_async_pubsub());
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
        if let Some(current) = self.lock().clone() {
            return Ok(current);
        }
        let connection = self
            .client
            .get_multiplexed_async_connection_with_config(&self.config)
            .await
            .map_err(|err| connect_error(&self.target, &err))?;
        let number = self.opened.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        *self.lock() = Some((number, connection.clone()));
        Ok((number, connection))
    }

    /// Drops connection `number` (its transport failed or timed out), so that the next call
    /// opens a new one.
    fn forget(&self, number: u64) {
        let mut current = self.lock();
        if current.as_ref().is_some_and(|(current, _)| *current == number) {
            *current = None;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Current> {
        self.current.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
