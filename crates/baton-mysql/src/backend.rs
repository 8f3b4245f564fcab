//! Connecting to MySQL or MariaDB and handing out the stores.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use baton_core::{Error, ErrorKind, Result};
use sqlx::mysql::{MySqlConnectOptions, MySqlPoolOptions};
use sqlx::{Connection, Executor, MySqlConnection, MySqlPool};

use crate::actions::MysqlActionStore;
use crate::bell::Bells;
use crate::changes::Refusals;
use crate::cluster::MysqlClusterStore;
use crate::connections::Connections;
use crate::error::{describe, number};
use crate::jobs::MysqlJobStore;
use crate::lease::MysqlLeaseStore;
use crate::terms::Terms;
use crate::version::check_version;
use crate::wakeups::{self, Bell};
use crate::{migrate, url};

/// How many connections the job and cluster stores of a backend share at most (the lease
/// stores have as many of their own, `connections`; doorbells, bells and watches aside).
const POOL_SIZE: u32 = 8;
/// How long an operation waits for a connection (or a first connection attempt) before failing.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Every session reads committed rows: REPEATABLE READ's gap locks make concurrent claims
/// deadlock, and every decision here is taken on rows it locks.
const SESSION_SETUP: &str = "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED";

/// Connections to one MySQL or MariaDB database holding baton's tables.
///
/// Cheap to clone: clones share the connections.
#[derive(Clone)]
pub struct MysqlBackend {
    pool: MySqlPool,
    options: Arc<MySqlConnectOptions>,
    endpoint: Arc<str>,
    /// Connections lent one statement at a time: the lease store's and the execution-token draws.
    lent: Connections,
    bells: Bells,
    refusals: Refusals,
    terms: Terms,
    due: Bell,
    pending: Bell,
}

impl MysqlBackend {
    /// Connects to the database at a `mysql://` or `mariadb://` URL.
    ///
    /// One connection is opened at once so that a wrong address, bad credentials, an unknown
    /// database or a server too old for `FOR UPDATE SKIP LOCKED` (MariaDB before 10.6, MySQL
    /// before 8.0.4) fail here with one line naming the problem (never the password), as does a
    /// failed TLS handshake; a malformed URL, or one with a query parameter other than
    /// `ssl-mode`, `ssl-ca`, `ssl-cert`, `ssl-key` and `socket`, fails with
    /// [`ErrorKind::InvalidInput`] before connecting.
    pub async fn connect(url: &str) -> Result<Self> {
        let options = url::parse(url)?;
        let endpoint = url::endpoint(&options);
        let attempt =
            tokio::time::timeout(CONNECT_TIMEOUT, MySqlConnection::connect_with(&options));
        let mut first = match attempt.await {
            Ok(Ok(conn)) => conn,
            Ok(Err(err)) => return Err(connect_error(&endpoint, &options, &err)),
            Err(_) => {
                return Err(Error::new(
                    ErrorKind::Unavailable,
                    format!(
                        "cannot connect to MySQL at {endpoint}: no answer within {}s",
                        CONNECT_TIMEOUT.as_secs()
                    ),
                ));
            }
        };
        let version: String = sqlx::query_scalar("SELECT VERSION()")
            .fetch_one(&mut first)
            .await
            .map_err(|err| connect_error(&endpoint, &options, &err))?;
        let _ = first.close().await;
        check_version(&endpoint, &version)?;
        let pool = MySqlPoolOptions::new()
            .max_connections(POOL_SIZE)
            .acquire_timeout(CONNECT_TIMEOUT)
            .test_before_acquire(false)
            .after_connect(|conn, _| {
                Box::pin(async move {
                    conn.execute(SESSION_SETUP).await?;
                    Ok(())
                })
            })
            .connect_lazy_with(options.clone());
        let options = Arc::new(options);
        let lent =
            Connections::new(options.clone(), SESSION_SETUP, POOL_SIZE as usize, CONNECT_TIMEOUT);
        let bells = Bells::new(options.clone());
        let (refusals, _) = tokio::sync::broadcast::channel(256);
        let due = Bell::new(wakeups::DUE, options.clone());
        let pending = Bell::new(wakeups::PENDING, options.clone());
        let terms = Terms::default();
        Ok(MysqlBackend {
            pool,
            options,
            endpoint: endpoint.into(),
            lent,
            bells,
            refusals,
            terms,
            due,
            pending,
        })
    }

    /// Creates or upgrades baton's tables (all prefixed `baton_`), recording the applied
    /// versions in [`MIGRATIONS_TABLE`](crate::MIGRATIONS_TABLE). Safe to run concurrently
    /// and repeatedly, and again after a failure.
    /// Answers the migrations this run applied, in order (none when the schema was current).
    pub async fn migrate(&self) -> Result<Vec<baton_core::Migration>> {
        migrate::run(&self.options).await
    }

    /// The lease store over these connections.
    pub fn leases(&self) -> MysqlLeaseStore {
        MysqlLeaseStore::new(
            self.lent.clone(),
            self.options.clone(),
            self.bells.clone(),
            self.refusals.clone(),
            self.terms.clone(),
        )
    }

    /// The job store over these connections; its due wake-ups share this backend's bell.
    pub fn jobs(&self) -> MysqlJobStore {
        MysqlJobStore::new(self.pool.clone(), self.lent.clone(), self.due.clone())
    }

    /// The operator action log over these connections.
    pub fn actions(&self) -> MysqlActionStore {
        MysqlActionStore::new(self.pool.clone())
    }

    /// The cluster store (nodes, batches, partitions) over these connections.
    pub fn cluster(&self) -> MysqlClusterStore {
        MysqlClusterStore::new(self.pool.clone(), self.pending.clone())
    }

    /// Where this backend connects, as `host:port` (or a socket path).
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// Closes the connections and refuses new operations.
    pub async fn close(&self) {
        self.lent.close().await;
        self.pool.close().await;
    }
}

impl fmt::Debug for MysqlBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MysqlBackend").field("endpoint", &self.endpoint).finish_non_exhaustive()
    }
}

/// The error of a failed connection attempt to `endpoint` (host:port, never the password).
fn connect_error(endpoint: &str, options: &MySqlConnectOptions, err: &sqlx::Error) -> Error {
    let database = options.get_database().unwrap_or_default();
    let (kind, cause) = match number(err) {
        Some(1049) => (
            ErrorKind::InvalidInput,
            format!("database {database:?} does not exist: create it or name another in the URL"),
        ),
        Some(1044) => (
            ErrorKind::InvalidInput,
            format!("{}: check the user and password in the URL", describe(err)),
        ),
        // Also the answer to an account that requires a client certificate and got none.
        Some(1045) => (
            ErrorKind::InvalidInput,
            format!(
                "{}: check the user and password in the URL (and ssl-cert and ssl-key if the \
                 account requires a client certificate)",
                describe(err)
            ),
        ),
        _ => (ErrorKind::Unavailable, describe(err)),
    };
    Error::new(kind, format!("cannot connect to MySQL at {endpoint}: {cause}"))
}
