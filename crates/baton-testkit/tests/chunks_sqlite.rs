//! Chunked steps on a SQLite file: each chunk's rows and its checkpoint commit in one
//! `BEGIN IMMEDIATE` transaction with `checkpoint_in` (scenarios in `chunks/mod.rs`).

mod chunks;

use std::sync::Arc;

use async_trait::async_trait;
use baton::cluster::ClusterStore;
use baton::core::cluster::PartitionCheckpointParams;
use baton::{FencingToken, LeaseStore, Result};
use baton_sqlite::checkpoint_in;
use baton_testkit::databases::SqliteFile;
use chunks::Database;
use sqlx::{Sqlite, SqlitePool, Transaction};

/// The cluster store's SQLite file, with the test's own pool on it.
struct SqliteTarget {
    file: SqliteFile,
    pool: SqlitePool,
}

impl SqliteTarget {
    async fn open() -> Arc<Self> {
        let file = SqliteFile::new();
        let path = file.backend().await.path().to_owned();
        let pool = SqlitePool::connect(&format!("sqlite://{}", path.display())).await.unwrap();
        sqlx::query("CREATE TABLE target (item INTEGER NOT NULL, token INTEGER NOT NULL)")
            .execute(&pool)
            .await
            .unwrap();
        Arc::new(SqliteTarget { file, pool })
    }
}

#[async_trait]
impl Database for SqliteTarget {
    type Tx = Transaction<'static, Sqlite>;

    async fn stores(&self) -> (Arc<dyn LeaseStore>, Arc<dyn ClusterStore>) {
        let backend = self.file.backend().await;
        (Arc::new(backend.leases()), Arc::new(backend.cluster()))
    }

    async fn begin(&self) -> Self::Tx {
        self.pool.begin_with("BEGIN IMMEDIATE").await.unwrap()
    }

    async fn insert(tx: &mut Self::Tx, item: u64, token: FencingToken) {
        sqlx::query("INSERT INTO target (item, token) VALUES (?, ?)")
            .bind(i64::try_from(item).unwrap())
            .bind(token.to_store())
            .execute(&mut **tx)
            .await
            .unwrap();
    }

    async fn checkpoint(tx: &mut Self::Tx, params: &PartitionCheckpointParams) -> Result<()> {
        checkpoint_in(tx, params).await
    }

    async fn commit(tx: Self::Tx) {
        tx.commit().await.unwrap();
    }

    async fn checkpoint_outside(&self, params: &PartitionCheckpointParams) -> Result<()> {
        checkpoint_in(&mut self.pool.acquire().await.unwrap(), params).await
    }

    async fn rows(&self) -> Vec<(i64, i64)> {
        sqlx::query_as("SELECT item, token FROM target ORDER BY item, token")
            .fetch_all(&self.pool)
            .await
            .unwrap()
    }
}

chunk_cases!(SqliteTarget::open());
