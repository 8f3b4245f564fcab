//! Saving a partition's checkpoint inside the caller's own transaction (invariant I7), so that
//! a chunk of work and the checkpoint after it commit or roll back together: a partition that
//! resumes elsewhere neither skips nor repeats a committed chunk.
//!
//! ```no_run
//! # async fn example(
//! #     pool: sqlx::SqlitePool,
//! #     params: baton_core::cluster::PartitionCheckpointParams,
//! # ) -> baton_core::Result<()> {
//! use sqlx::Connection;
//!
//! let mut conn = pool.acquire().await.expect("connection");
//! let mut tx = conn.begin_with("BEGIN IMMEDIATE").await.expect("begin");
//! // ... the chunk's writes, on `tx` ...
//! // `LeaseLost` if the claim is no longer current: dropping `tx` rolls the chunk back.
//! baton_sqlite::checkpoint_in(&mut tx, &params).await?;
//! tx.commit().await.expect("commit");
//! # Ok(())
//! # }
//! ```

use baton_core::cluster::{PartitionCheckpointParams, partition_lost};
use baton_core::time::{Clock, SystemClock};
use baton_core::{Error, Result};
use sqlx::{Connection, SqliteConnection};

use crate::error::from_sqlx;

/// Replaces the checkpoint and progress of a partition claimed under `params.token` and stamps
/// its heartbeat, in one statement on `conn`: a compare-and-set on (partition, token, claimed).
/// `LeaseLost`, changing nothing, when the claim is no longer current; the caller must then
/// roll back.
///
/// `conn` must be inside the caller's own transaction, begun with `BEGIN IMMEDIATE` through
/// sqlx (`begin_with`); a connection outside a transaction is refused with `InvalidInput`.
/// That transaction holds the database's write lock, which every other writer (this node's
/// heartbeats included) waits for: keep it short.
/// The `baton_partitions` table is created by
/// [`SqliteBackend::migrate`](crate::SqliteBackend::migrate).
pub async fn checkpoint_in(
    conn: &mut SqliteConnection,
    params: &PartitionCheckpointParams,
) -> Result<()> {
    if !conn.is_in_transaction() {
        return Err(Error::invalid_input(format!(
            "checkpoint of partition {} outside a transaction: begin one with BEGIN IMMEDIATE \
             and run the chunk's writes in it",
            params.id
        )));
    }
    let progress = i64::try_from(params.progress).map_err(|_| {
        Error::invalid_input(format!(
            "invalid progress {}: expected at most {}",
            params.progress,
            i64::MAX
        ))
    })?;
    let saved: Option<i64> =
        sqlx::query_scalar(include_str!("../queries/partition_checkpoint_in.sql"))
            .bind(SystemClock.now().as_millis())
            .bind(params.id)
            .bind(params.token.to_store())
            .bind(params.checkpoint.as_str())
            .bind(progress)
            .fetch_optional(&mut *conn)
            .await
            .map_err(|err| {
                from_sqlx(&format!("saving a checkpoint of partition {}", params.id), err)
            })?;
    match saved {
        Some(_) => Ok(()),
        None => Err(partition_lost(params.id, params.token)),
    }
}
