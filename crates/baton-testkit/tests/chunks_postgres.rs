//! Chunked steps on a throwaway PostgreSQL server: each chunk's rows and its checkpoint commit
//! in one transaction with `checkpoint_in` (scenarios in `chunks/mod.rs`).

mod chunks;

use std::sync::Arc;

use async_trait::async_trait;
use baton::cluster::ClusterStore;
use baton::core::cluster::PartitionCheckpointParams;
use baton::{FencingToken, LeaseStore, Result};
use baton_postgres::checkpoint_in;
use baton_testkit::databases::PostgresDatabase;
use chunks::Database;
use sqlx::{PgPool, Postgres, Transaction};

/// A throwaway server holding the cluster store, with the test's own pool on it.
struct PostgresTarget {
    database: PostgresDatabase,
    pool: PgPool,
}

impl PostgresTarget {
    async fn open() -> Arc<Self> {
        let database = PostgresDatabase::start();
        database.backend().await;
        let pool = PgPool::connect(&database.server().url()).await.unwrap();
        sqlx::query("CREATE TABLE target (item BIGINT NOT NULL, token BIGINT NOT NULL)")
            .execute(&pool)
            .await
            .unwrap();
        Arc::new(PostgresTarget { database, pool })
    }
}

#[async_trait]
impl Database for PostgresTarget {
    type Tx = Transaction<'static, Postgres>;

    async fn stores(&self) -> (Arc<dyn LeaseStore>, Arc<dyn ClusterStore>) {
        let backend = self.database.backend().await;
        (Arc::new(backend.leases()), Arc::new(backend.cluster()))
    }

    async fn begin(&self) -> Self::Tx {
        self.pool.begin().await.unwrap()
    }

    async fn insert(tx: &mut Self::Tx, item: u64, token: FencingToken) {
        sqlx::query("INSERT INTO target (item, token) VALUES ($1, $2)")
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

chunk_cases!(PostgresTarget::open());
