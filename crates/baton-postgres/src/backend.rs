//! Connecting to PostgreSQL and handing out the stores.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use baton_core::{Error, ErrorKind, Result};
use sqlx::postgres::PgConnectOptions;
use sqlx::{Connection, PgConnection};

use crate::actions::PostgresActionStore;
use crate::cluster::PostgresClusterStore;
use crate::connections::Connections;
use crate::error::connect_error;
use crate::jobs::PostgresJobStore;
use crate::lease::PostgresLeaseStore;
use crate::{migrate, url};

/// How many connections a backend opens at most.
const POOL_SIZE: usize = 8;
/// How long an operation waits for a connection (or a first connection attempt) before failing.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// Connections to one PostgreSQL database holding baton's tables.
///
/// Cheap to clone: clones share the connections.
#[derive(Clone)]
pub struct PostgresBackend {
    connections: Connections,
    options: Arc<PgConnectOptions>,
    endpoint: Arc<str>,
}

impl PostgresBackend {
    /// Connects to the database at a `postgres://` or `postgresql://` URL.
    ///
    /// One connection is opened at once so that a wrong address or bad credentials fail here,
    /// with an [`ErrorKind::Unavailable`] error naming the host and port (never the password);
    /// a malformed URL fails with [`ErrorKind::InvalidInput`].
    pub async fn connect(url: &str) -> Result<Self> {
        let options = url::parse(url)?;
        let endpoint = url::endpoint(&options);
        let attempt = tokio::time::timeout(CONNECT_TIMEOUT, PgConnection::connect_with(&options));
        let first = match attempt.await {
            Ok(Ok(conn)) => conn,
            Ok(Err(err)) => return Err(connect_error(&endpoint, &err)),
            Err(_) => {
                return Err(Error::new(
                    ErrorKind::Unavailable,
                    format!(
                        "cannot connect to PostgreSQL at {endpoint}: no answer within {}s",
                        CONNECT_TIMEOUT.as_secs()
                    ),
                ));
            }
        };
        // The check is done; connections are opened as operations need them. A connection
        // broken by a server restart fails its statement once (Unavailable) and is replaced.
        let _ = first.close().await;
        let connections = Connections::new(options.clone(), POOL_SIZE, CONNECT_TIMEOUT);
        Ok(PostgresBackend { connections, options: Arc::new(options), endpoint: endpoint.into() })
    }

    /// Creates or upgrades baton's tables (all prefixed `baton_`), recording the applied
    /// versions in [`MIGRATIONS_TABLE`](crate::MIGRATIONS_TABLE). Safe to run concurrently
    /// and repeatedly.
    /// Answers the migrations this run applied, in order (none when the schema was current).
    pub async fn migrate(&self) -> Result<Vec<baton_core::Migration>> {
        migrate::run(&self.options).await
    }

    /// The lease store over this pool.
    pub fn leases(&self) -> PostgresLeaseStore {
        PostgresLeaseStore::new(self.connections.clone(), self.options.clone())
    }

    /// The job store over this pool.
    pub fn jobs(&self) -> PostgresJobStore {
        PostgresJobStore::new(self.connections.clone(), self.options.clone())
    }

    /// The cluster store over this pool.
    pub fn cluster(&self) -> PostgresClusterStore {
        PostgresClusterStore::new(self.connections.clone(), self.options.clone())
    }

    /// The operator action log over this pool.
    pub fn actions(&self) -> PostgresActionStore {
        PostgresActionStore::new(self.connections.clone())
    }

    /// Where this backend connects, as `host:port` (or a socket path).
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// Closes the idle connections and refuses new operations; connections in use are closed
    /// as their operations end.
    pub async fn close(&self) {
        self.connections.close().await;
    }
}

impl fmt::Debug for PostgresBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PostgresBackend").field("endpoint", &self.endpoint).finish_non_exhaustive()
    }
}
