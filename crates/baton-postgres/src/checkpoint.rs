//! Saving a partition's checkpoint inside the caller's own transaction (invariant I7), so that
//! a chunk of work and the checkpoint after it commit or roll back together: a partition that
//! resumes elsewhere neither skips nor repeats a committed chunk.
//!
//! ```no_run
//! # use baton_core::cluster::PartitionCheckpointParams;
//! # use baton_core::{Error, ErrorKind};
//! # async fn write(pool: &sqlx::PgPool, params: PartitionCheckpointParams) -> Result<(), Error> {
//! # let map = |e: sqlx::Error| Error::new(ErrorKind::Unavailable, e.to_string());
//! let mut tx = pool.begin().await.map_err(map)?;
//! // ... the chunk's writes, in the same transaction ...
//! // `LeaseLost` if the claim is no longer current: dropping `tx` rolls the chunk back.
//! baton_postgres::checkpoint_in(&mut tx, &params).await?;
//! tx.commit().await.map_err(map)?;
//! # Ok(())
//! # }
//! ```

use baton_core::cluster::{PartitionCheckpointParams, partition_lost};
use baton_core::{Error, Result};
use sqlx::{Connection, PgConnection};

use crate::error::query_error;
use crate::queries::PARTITION_CHECKPOINT_IN;

/// Replaces the checkpoint and progress of a partition claimed under `params.token` and stamps
/// its heartbeat, in one statement on `conn`: a compare-and-set on (partition, token, claimed).
/// `LeaseLost`, changing nothing, when the claim is no longer current; the caller must then
/// roll back (dropping the transaction does).
///
/// `conn` must be the caller's open transaction, begun through sqlx (`&mut *tx`); a connection
/// outside a transaction is refused with `InvalidInput`. The partition stays locked until that
/// transaction ends, delaying its node's heartbeats: call this last, just before the commit.
/// Progress beyond `i64::MAX` is kept as `i64::MAX`, as the store keeps it. Requires the
/// schema created by [`PostgresBackend::migrate`](crate::PostgresBackend::migrate).
pub async fn checkpoint_in(
    conn: &mut PgConnection,
    params: &PartitionCheckpointParams,
) -> Result<()> {
    if !conn.is_in_transaction() {
        return Err(Error::invalid_input(format!(
            "checkpoint of partition {} outside a transaction: begin one and run the chunk's \
             writes in it",
            params.id
        )));
    }
    let saved: Option<i64> = sqlx::query_scalar(PARTITION_CHECKPOINT_IN)
        .bind(params.id)
        .bind(params.token.to_store())
        .bind(params.checkpoint.as_str())
        .bind(i64::try_from(params.progress).unwrap_or(i64::MAX))
        .fetch_optional(&mut *conn)
        .await
        .map_err(|err| query_error(format!("checkpointing partition {}", params.id), err))?;
    match saved {
        Some(_) => Ok(()),
        None => Err(partition_lost(params.id, params.token)),
    }
}
