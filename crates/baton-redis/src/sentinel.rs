//! Finding the master of a Sentinel deployment, and noticing when it changes.
//!
//! The sentinels are asked in the URL's order (`SENTINEL get-master-addr-by-name`); the server
//! the first of them names is accepted only if it says it is a master (`ROLE`), since a
//! sentinel that has not yet seen a failover still names the former master, which may have
//! come back as a replica. A watcher subscribed to `+switch-master` on one sentinel drops the
//! connection as soon as a failover is announced, and any call that fails on its transport or
//! hears `READONLY` drops it too: the next call finds the master again. Nothing is sent again
//! on its own: a call that failed mid-way keeps its unknown outcome.

use std::pin::Pin;
use std::sync::Weak;

use std::time::Duration;

use baton_core::{Error, ErrorKind, Result};
use futures_core::Stream;
use redis::aio::MultiplexedConnection;
use redis::{
    AsyncConnectionConfig, Client, ConnectionAddr, ConnectionInfo, IntoConnectionInfo,
    TlsCertificates, Value,
};

use crate::error::kind_of;
use crate::link::{Connections, Link};
use crate::url::{self, Sentinels, address};

/// How long the watcher waits before it subscribes again after losing its sentinel.
const WATCH_RETRY: Duration = Duration::from_secs(1);

/// The channel on which a sentinel announces a new master:
/// `<master name> <old ip> <old port> <new ip> <new port>`.
const SWITCH_MASTER: &str = "+switch-master";

/// A server the sentinels named and the client that reaches it.
pub(crate) struct Master {
    /// `host:port` of the master, for messages.
    pub(crate) address: String,
    /// A client for the master, with the URL's credentials and database.
    pub(crate) client: Client,
}

/// A client for a sentinel: its address, no credentials, database 0, and TLS as the URL says.
fn sentinel_client(
    host: &str,
    port: u16,
    tls: Option<&TlsCertificates>,
) -> redis::RedisResult<Client> {
    url::client(ConnectionAddr::Tcp(host.to_string(), port).into_connection_info()?, tls)
}

/// Finds the master through the sentinels and opens a connection to it, checked with `ROLE`.
/// Fails with one line naming what every sentinel answered.
pub(crate) async fn find_master(
    link: &Link,
    sentinels: &Sentinels,
    template: &ConnectionInfo,
    config: &AsyncConnectionConfig,
) -> Result<(Master, MultiplexedConnection)> {
    let mut answers = Vec::with_capacity(sentinels.addresses.len());
    let mut unknown_name = 0;
    for (host, port) in &sentinels.addresses {
        let sentinel = address(host, *port);
        let tls = link.target.tls.as_ref();
        let (host, port) = match ask(host, *port, &sentinels.master, tls, config).await {
            Ok(Some(found)) => found,
            Ok(None) => {
                unknown_name += 1;
                answers.push(format!("{sentinel} does not monitor a master of that name"));
                continue;
            }
            Err(cause) => {
                answers.push(format!("{sentinel}: {}", link.target.scrub(&cause.to_string())));
                continue;
            }
        };
        let master = Master {
            address: address(&host, port),
            client: url::client(template.clone().set_addr(ConnectionAddr::Tcp(host, port)), tls)
                .map_err(|err| Error::invalid_input(link.target.scrub(&err.to_string())))?,
        };
        match check_master(&master, config).await {
            Ok(connection) => return Ok((master, connection)),
            Err(cause) => answers.push(format!("{sentinel} names {}, {cause}", master.address)),
        }
    }
    let kind = match unknown_name == sentinels.addresses.len() {
        true => ErrorKind::InvalidInput,
        false => ErrorKind::Unavailable,
    };
    Err(Error::new(
        kind,
        link.target.scrub(&format!(
            "cannot find the Redis master {:?} through its sentinels: {}",
            sentinels.master,
            answers.join("; ")
        )),
    ))
}

/// Asks one sentinel for the master's address; `None` if it watches no master of that name.
async fn ask(
    host: &str,
    port: u16,
    master: &str,
    tls: Option<&TlsCertificates>,
    config: &AsyncConnectionConfig,
) -> redis::RedisResult<Option<(String, u16)>> {
    let client = sentinel_client(host, port, tls)?;
    let mut connection = client.get_multiplexed_async_connection_with_config(config).await?;
    let answer: Option<(String, u16)> = redis::cmd("SENTINEL")
        .arg("get-master-addr-by-name")
        .arg(master)
        .query_async(&mut connection)
        .await?;
    Ok(answer)
}

/// Opens a connection to the server a sentinel named and checks that it is a master.
async fn check_master(
    master: &Master,
    config: &AsyncConnectionConfig,
) -> std::result::Result<MultiplexedConnection, String> {
    let mut connection = master
        .client
        .get_multiplexed_async_connection_with_config(config)
        .await
        .map_err(|err| format!("which cannot be reached ({err})"))?;
    let role: Vec<Value> = redis::cmd("ROLE")
        .query_async(&mut connection)
        .await
        .map_err(|err| format!("which did not answer ROLE ({err})"))?;
    match role.first() {
        Some(Value::BulkString(role)) if role == b"master" => Ok(connection),
        Some(Value::BulkString(role)) => Err(format!(
            "which is a {}, not a master: the sentinels have not agreed on a master yet",
            String::from_utf8_lossy(role)
        )),
        other => Err(format!("which answered ROLE with {other:?}")),
    }
}

/// Whether a failed call says the server is no longer the master, or that its connection is
/// gone: either way the master is looked up again before the next call.
pub(crate) fn lost_master(err: &redis::RedisError) -> bool {
    err.is_io_error()
        || err.is_unrecoverable_error()
        || err.is_timeout()
        || (kind_of(err) == ErrorKind::Unavailable && err.code() == Some("READONLY"))
}

/// Watches the sentinels for `+switch-master` on `sentinels.master` and makes the link find
/// the master again each time; ends once the link is dropped (which also aborts it).
/// Subscribes on one sentinel at a time, moving on to the next when it is lost, and forgets
/// the connection after each new subscription, since a failover may have been announced while
/// nobody listened.
pub(crate) async fn watch(
    link: Weak<Connections>,
    sentinels: Sentinels,
    tls: Option<TlsCertificates>,
    connect_timeout: Duration,
) {
    let mut first = true;
    for (host, port) in sentinels.addresses.iter().cycle() {
        if !first {
            tokio::time::sleep(WATCH_RETRY).await;
        }
        let subscribed = async {
            let client = sentinel_client(host, *port, tls.as_ref())?;
            let opening = client.get_async_pubsub();
            let mut pubsub =
                tokio::time::timeout(connect_timeout, opening).await.map_err(|_| {
                    redis::RedisError::from(std::io::Error::from(std::io::ErrorKind::TimedOut))
                })??;
            pubsub.subscribe(SWITCH_MASTER).await?;
            Ok::<_, redis::RedisError>(pubsub.into_on_message())
        };
        let mut messages = match subscribed.await {
            Ok(messages) => messages,
            Err(err) => {
                tracing::debug!(sentinel = %address(host, *port), %err, "cannot watch for failovers");
                first = false;
                continue;
            }
        };
        if !first {
            match link.upgrade() {
                Some(link) => link.forget_all(),
                None => return,
            }
        }
        first = false;
        while let Some(message) =
            std::future::poll_fn(|cx| Pin::new(&mut messages).poll_next(cx)).await
        {
            let payload = String::from_utf8_lossy(message.get_payload_bytes()).into_owned();
            if payload.split(' ').next() != Some(sentinels.master.as_str()) {
                continue;
            }
            let Some(link) = link.upgrade() else {
                return;
            };
            tracing::info!(master = %sentinels.master, %payload, "Sentinel switched the master");
            link.forget_all();
        }
    }
}
