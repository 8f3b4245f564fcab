//! The lease conformance suite against the SQLite backend.
//!
//! Every `store()` call opens a separate backend (its own pools) on one database file, as
//! separate processes would.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use baton_core::{LeaseName, LeaseStore};
use baton_sqlite::SqliteBackend;
use baton_testkit::conformance::lease::LeaseHarness;
use sqlx::Connection;
use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};
use tokio::sync::OnceCell;

/// A database file in a temporary directory removed when the harness is dropped.
struct Sqlite {
    dir: tempfile::TempDir,
    migrated: OnceCell<()>,
}

impl Sqlite {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("temporary directory");
        Sqlite { dir, migrated: OnceCell::new() }
    }

    fn path(&self) -> std::path::PathBuf {
        self.dir.path().join("baton.db")
    }
}

#[async_trait]
impl LeaseHarness for Sqlite {
    async fn store(&self) -> Arc<dyn LeaseStore> {
        let url = format!("sqlite://{}", self.path().display());
        let backend = SqliteBackend::connect(&url).await.expect("open the database");
        self.migrated
            .get_or_init(|| async { drop(backend.migrate().await.expect("migrate")) })
            .await;
        Arc::new(backend.leases())
    }

    async fn delete_record(&self, name: &LeaseName) {
        let options =
            SqliteConnectOptions::new().filename(self.path()).busy_timeout(Duration::from_secs(10));
        let mut conn = SqliteConnection::connect_with(&options).await.expect("raw connection");
        sqlx::query("DELETE FROM baton_leases WHERE name = ?1")
            .bind(name.as_str())
            .execute(&mut conn)
            .await
            .expect("delete the lease row");
        conn.close().await.expect("close the raw connection");
    }
}

baton_testkit::lease_conformance!(Sqlite::new());
