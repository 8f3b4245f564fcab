//! Shared set-up for the SQLite backend's tests.

#![allow(dead_code)]

use std::path::PathBuf;

use baton_sqlite::SqliteBackend;

/// A database file in a temporary directory that is removed on drop.
pub struct TempDb {
    dir: tempfile::TempDir,
}

impl TempDb {
    pub fn new() -> Self {
        TempDb { dir: tempfile::tempdir().expect("temporary directory") }
    }

    pub fn path(&self) -> PathBuf {
        self.dir.path().join("baton.db")
    }

    pub fn url(&self) -> String {
        format!("sqlite://{}", self.path().display())
    }

    /// Opens a new backend on the file (its own pools, as another process would) and migrates.
    pub async fn open(&self) -> SqliteBackend {
        let backend = SqliteBackend::connect(&self.url()).await.expect("open the database");
        backend.migrate().await.expect("migrate");
        backend
    }
}
