//! The databases the backends' suites run on: a SQLite file in a temporary directory and
//! throwaway PostgreSQL and MariaDB servers. Every `backend()` call opens a backend of its own
//! (its own pools or connections), as a separate process would; the schema is migrated on first
//! use. Each is a harness of the job, cluster and action-log conformance suites.

use std::sync::Arc;

use async_trait::async_trait;
use baton::mysql::MysqlBackend;
use baton::postgres::PostgresBackend;
use baton::sqlite::SqliteBackend;
use baton_core::{ActionStore, ClusterStore, JobStore};
use sqlx::{Connection, MySqlConnection, PgConnection};
use tokio::sync::OnceCell;

use crate::conformance::actions::ActionHarness;
use crate::conformance::cluster::ClusterHarness;
use crate::conformance::jobs::JobHarness;
use crate::servers::{MariadbServer, PostgresServer};

/// A SQLite database file in a temporary directory, removed when this is dropped.
pub struct SqliteFile {
    dir: tempfile::TempDir,
    migrated: OnceCell<()>,
}

impl SqliteFile {
    /// A new, empty database file.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("temporary directory");
        SqliteFile { dir, migrated: OnceCell::new() }
    }

    /// Opens a new backend on the file, migrating it the first time.
    pub async fn backend(&self) -> SqliteBackend {
        let url = format!("sqlite://{}", self.dir.path().join("baton.db").display());
        let backend = SqliteBackend::connect(&url).await.expect("open the database");
        self.migrated
            .get_or_init(|| async { drop(backend.migrate().await.expect("migrate")) })
            .await;
        backend
    }
}

impl Default for SqliteFile {
    fn default() -> Self {
        SqliteFile::new()
    }
}

/// A throwaway PostgreSQL server on a free loopback port, stopped and removed on drop.
pub struct PostgresDatabase {
    server: PostgresServer,
    migrated: OnceCell<()>,
}

impl PostgresDatabase {
    /// Starts the server.
    pub fn start() -> Self {
        PostgresDatabase { server: PostgresServer::start(), migrated: OnceCell::new() }
    }

    /// The server, to stop, pause or restart it.
    pub fn server(&self) -> &PostgresServer {
        &self.server
    }

    /// Opens a new backend on the server, migrating it the first time.
    pub async fn backend(&self) -> PostgresBackend {
        let backend = PostgresBackend::connect(&self.server.url()).await.expect("connect");
        self.migrated
            .get_or_init(|| async { drop(backend.migrate().await.expect("migrate")) })
            .await;
        backend
    }

    /// A plain session on the server, to inspect or hold locks behind the backend's back.
    pub async fn admin(&self) -> PgConnection {
        PgConnection::connect(&self.server.url()).await.expect("connect an admin session")
    }

    /// Turns autovacuum off for the rest of the test, so that nothing but the test writes or
    /// analyzes behind its back (transaction counts, statistics).
    pub async fn autovacuum_off(&self) {
        let mut admin = self.admin().await;
        for statement in ["ALTER SYSTEM SET autovacuum = off", "SELECT pg_reload_conf()"] {
            sqlx::query(statement).execute(&mut admin).await.expect("turn autovacuum off");
        }
    }
}

/// A throwaway MariaDB server on a free loopback port, stopped and removed on drop.
pub struct MariadbDatabase {
    server: MariadbServer,
    migrated: OnceCell<()>,
}

impl MariadbDatabase {
    /// Starts the server.
    pub fn start() -> Self {
        MariadbDatabase { server: MariadbServer::start(), migrated: OnceCell::new() }
    }

    /// The server, to stop, pause or restart it.
    pub fn server(&self) -> &MariadbServer {
        &self.server
    }

    /// Opens a new backend on the server, migrating it the first time.
    pub async fn backend(&self) -> MysqlBackend {
        let backend = MysqlBackend::connect(&self.server.url()).await.expect("connect");
        self.migrated
            .get_or_init(|| async { drop(backend.migrate().await.expect("migrate")) })
            .await;
        backend
    }

    /// A plain session on the server, to inspect or hold locks behind the backend's back.
    pub async fn admin(&self) -> MySqlConnection {
        MySqlConnection::connect(&self.server.url()).await.expect("connect an admin session")
    }
}

#[async_trait]
impl JobHarness for SqliteFile {
    async fn store(&self) -> Arc<dyn JobStore> {
        Arc::new(self.backend().await.jobs())
    }
}

#[async_trait]
impl ClusterHarness for SqliteFile {
    async fn store(&self) -> Arc<dyn ClusterStore> {
        Arc::new(self.backend().await.cluster())
    }
}

#[async_trait]
impl JobHarness for PostgresDatabase {
    async fn store(&self) -> Arc<dyn JobStore> {
        Arc::new(self.backend().await.jobs())
    }
}

#[async_trait]
impl ClusterHarness for PostgresDatabase {
    async fn store(&self) -> Arc<dyn ClusterStore> {
        Arc::new(self.backend().await.cluster())
    }
}

#[async_trait]
impl ClusterHarness for MariadbDatabase {
    async fn store(&self) -> Arc<dyn ClusterStore> {
        Arc::new(self.backend().await.cluster())
    }
}

#[async_trait]
impl ActionHarness for SqliteFile {
    async fn store(&self) -> Arc<dyn ActionStore> {
        Arc::new(self.backend().await.actions())
    }
}

#[async_trait]
impl ActionHarness for PostgresDatabase {
    async fn store(&self) -> Arc<dyn ActionStore> {
        Arc::new(self.backend().await.actions())
    }
}

#[async_trait]
impl JobHarness for MariadbDatabase {
    async fn store(&self) -> Arc<dyn JobStore> {
        Arc::new(self.backend().await.jobs())
    }
}

#[async_trait]
impl ActionHarness for MariadbDatabase {
    async fn store(&self) -> Arc<dyn ActionStore> {
        Arc::new(self.backend().await.actions())
    }
}
