//! The store under test: what the floor and the commit counter connect to directly.

use std::path::PathBuf;
use std::time::Duration;

use sqlx::mysql::MySqlConnectOptions;
use sqlx::postgres::PgConnectOptions;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteSynchronous};

/// The busy timeout the SQLite backend opens its connections with.
const SQLITE_BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The store a benchmark runs against, reached both through baton and directly.
#[derive(Debug, Clone)]
pub(crate) enum Target {
    /// A SQLite file.
    Sqlite {
        /// The absolute path of the database file.
        path: PathBuf,
    },
    /// A PostgreSQL database.
    Postgres {
        /// How to connect to it.
        options: Box<PgConnectOptions>,
    },
    /// A MySQL or MariaDB database.
    Mysql {
        /// How to connect to it.
        options: Box<MySqlConnectOptions>,
    },
}

impl Target {
    /// Works out the store behind `url`, which `baton::connect` has already accepted.
    pub(crate) async fn from_url(url: &str) -> anyhow::Result<Target> {
        let scheme = url.split_once("://").map_or("", |(scheme, _)| scheme);
        match scheme {
            "sqlite" => {
                let backend = baton::sqlite::SqliteBackend::connect(url).await?;
                let path = backend.path().to_path_buf();
                backend.close().await;
                Ok(Target::Sqlite { path })
            }
            "postgres" | "postgresql" => {
                let options = url.parse::<PgConnectOptions>()?.application_name("baton-bench");
                Ok(Target::Postgres { options: Box::new(options) })
            }
            "mysql" | "mariadb" => {
                let options = url.replacen("mariadb://", "mysql://", 1).parse()?;
                Ok(Target::Mysql { options: Box::new(options) })
            }
            _ => anyhow::bail!(
                "the benchmark needs a store it can measure a floor on: expected sqlite://PATH, \
                 postgres://USER@HOST:PORT/DB or mysql://USER@HOST:PORT/DB, got {:?}",
                baton::redact(url)
            ),
        }
    }

    /// "SQLite", "PostgreSQL" or "MySQL".
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Target::Sqlite { .. } => "SQLite",
            Target::Postgres { .. } => "PostgreSQL",
            Target::Mysql { .. } => "MySQL",
        }
    }

    /// Whether this is an embedded file (SQLite) rather than a database server.
    pub(crate) fn is_embedded(&self) -> bool {
        matches!(self, Target::Sqlite { .. })
    }

    /// Whether this is PostgreSQL, where the design sets throughput and statement targets.
    pub(crate) fn is_postgres(&self) -> bool {
        matches!(self, Target::Postgres { .. })
    }

    /// Connection settings equal to the SQLite backend's: WAL, `synchronous = FULL`, a 10 s
    /// busy timeout, foreign keys on.
    pub(crate) fn sqlite_options(path: &std::path::Path) -> SqliteConnectOptions {
        SqliteConnectOptions::new()
            .filename(path)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(SQLITE_BUSY_TIMEOUT)
            .foreign_keys(true)
    }
}
