//! Opening a database file: connection settings, the write and read pools, migrations.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use baton_core::{Error, ErrorKind, Result};
use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions, SqliteSynchronous};

use crate::actions::SqliteActionStore;
use crate::cluster::SqliteClusterStore;
use crate::error::{classify, is_busy};
use crate::jobs::SqliteJobStore;
use crate::lease::SqliteLeaseStore;
use crate::notify::Notifier;
use crate::turn::WriteGate;
use crate::tx::Writer;
use crate::{migrate, url};

/// How long a statement waits for another process's lock before failing with `Timeout`.
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections of the read pool; writes go through a single connection.
const READ_CONNECTIONS: u32 = 4;
/// Pause between attempts to switch a new file to WAL while another process holds it.
const WAL_RETRY_PAUSE: Duration = Duration::from_millis(25);

/// A SQLite database file opened for baton.
///
/// Writes go through a pool of one connection, take turns with other processes' writers at a
/// lock on `<database>.lock` and always begin with `BEGIN IMMEDIATE`; reads go through a
/// separate pool. Connections run in WAL mode with `synchronous = FULL` (a granted
/// token survives power loss, so it is never issued twice), a 10 s busy timeout and foreign keys
/// on. Several processes on one host may open the same file; it must not be on a network
/// filesystem.
///
/// Cloning is cheap; clones share the pools.
#[derive(Debug, Clone)]
pub struct SqliteBackend {
    path: PathBuf,
    write: Writer,
    read: SqlitePool,
    notifier: Notifier,
    due: Notifier,
    pending: Notifier,
}

impl SqliteBackend {
    /// Opens (creating if missing) the database named by a URL such as `sqlite://baton.db`
    /// (relative to the working directory) or `sqlite:///var/lib/baton/baton.db`.
    ///
    /// Fails with `InvalidInput` for a malformed or in-memory URL, and with `Unavailable`,
    /// naming the path, when the file cannot be opened as a SQLite database.
    pub async fn connect(url: &str) -> Result<Self> {
        let path = url::database_path(url)?;
        let options = SqliteConnectOptions::new()
            .filename(&path)
            .create_if_missing(true)
            .busy_timeout(BUSY_TIMEOUT)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true);
        let write = SqlitePoolOptions::new()
            .max_connections(1)
            .test_before_acquire(false)
            .connect_with(options.clone())
            .await
            .map_err(|err| open_failed(&path, err))?;
        enable_wal(&write, &path).await?;
        let read = SqlitePoolOptions::new()
            .max_connections(READ_CONNECTIONS)
            .test_before_acquire(false)
            .connect_lazy_with(options.pragma("query_only", "ON"));
        let canonical = std::fs::canonicalize(&path).map_err(|err| {
            Error::new(
                ErrorKind::Unavailable,
                format!("cannot open SQLite database {}: {err}", path.display()),
            )
        })?;
        let write = Writer::new(write, WriteGate::beside(&canonical));
        let notifier = Notifier::beside(&canonical);
        let due = Notifier::due_beside(&canonical);
        let pending = Notifier::pending_beside(&canonical);
        Ok(SqliteBackend { path: canonical, write, read, notifier, due, pending })
    }

    /// Creates or upgrades baton's tables (all prefixed `baton_`); safe to run from several
    /// processes at once and on an up-to-date database.
    /// Answers the migrations this run applied, in order (none when the schema was current).
    pub async fn migrate(&self) -> Result<Vec<baton_core::Migration>> {
        migrate::run(&self.write).await
    }

    /// The lease store of this database.
    pub fn leases(&self) -> SqliteLeaseStore {
        SqliteLeaseStore::new(self.write.clone(), self.read.clone(), self.notifier.clone())
    }

    /// The job store of this database: job definitions, fires and executions. It shares the
    /// write lock and the token counter with [`leases`](Self::leases).
    pub fn jobs(&self) -> SqliteJobStore {
        SqliteJobStore::new(self.write.clone(), self.read.clone(), self.due.clone())
    }

    /// The operator action log in this file.
    pub fn actions(&self) -> SqliteActionStore {
        SqliteActionStore::new(self.write.clone(), self.read.clone())
    }

    /// The cluster store of this database: nodes, partitioned batches and their partitions. It
    /// shares the write lock and the token counter with [`leases`](Self::leases).
    pub fn cluster(&self) -> SqliteClusterStore {
        SqliteClusterStore::new(self.write.clone(), self.read.clone(), self.pending.clone())
    }

    /// The absolute path of the database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Closes every connection of this backend and of the stores made from it, waiting for
    /// operations in progress.
    pub async fn close(&self) {
        self.write.pool().close().await;
        self.read.close().await;
    }
}

/// Switches the file to WAL mode, which is persistent. Switching a new file needs an exclusive
/// lock that the busy handler does not wait for, so a busy answer is retried until the busy
/// timeout; on a file already in WAL mode this is a no-op.
async fn enable_wal(write: &SqlitePool, path: &Path) -> Result<()> {
    let deadline = Instant::now() + BUSY_TIMEOUT;
    loop {
        let answer: std::result::Result<String, sqlx::Error> =
            sqlx::query_scalar(include_str!("../queries/journal_mode_wal.sql"))
                .fetch_one(write)
                .await;
        match answer {
            Ok(mode) if mode.eq_ignore_ascii_case("wal") => return Ok(()),
            Ok(mode) => {
                return Err(Error::new(
                    ErrorKind::Unavailable,
                    format!(
                        "cannot open SQLite database {}: it stays in {mode} journal mode, and \
                         baton needs WAL (is the file on a local filesystem?)",
                        path.display()
                    ),
                ));
            }
            Err(err) if is_busy(&err) && Instant::now() < deadline => {
                tokio::time::sleep(WAL_RETRY_PAUSE).await;
            }
            Err(err) => return Err(open_failed(path, err)),
        }
    }
}

fn open_failed(path: &Path, err: sqlx::Error) -> Error {
    let (kind, detail) = classify(&err);
    let kind = if kind == ErrorKind::Timeout { kind } else { ErrorKind::Unavailable };
    Error::new(kind, format!("cannot open SQLite database {}: {detail}", path.display()))
        .with_source(err)
}
