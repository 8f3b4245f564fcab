//! Batch writes: creating a batch with all its partitions, and finishing it by the core's
//! verdict once every partition is final.

use baton_core::Result;
use baton_core::cluster::{
    AssignedPartition, BatchCreateParams, BatchJob, BatchState, BatchTally, LISTED_FAILURES,
    PartitionKey, batch_not_found, verdict,
};
use sqlx::MySqlConnection;

use super::lists::{self, MOST_ROWS};
use super::rows::BatchRow;
use super::{Inner, now};
use crate::queries::{
    BATCH_FINISH, BATCH_FIRST_FAILED, BATCH_INSERT, BATCH_LOCK, BATCH_TALLY, PARTITION_INSERT,
};
use crate::row::corrupt;
use crate::tx::{self, Failure};
use crate::wakeups::{self, PENDING};

/// The most bytes of partition keys and parameters one insert statement carries, well below
/// the default `max_allowed_packet` (16 MiB on MariaDB, 64 MiB on MySQL 8).
const INSERT_BYTES: usize = 4 << 20;

/// Creates a running batch and its pending partitions, numbered in the order given: one
/// statement for the batch and one per [`MOST_ROWS`] partitions (or 4 MiB of keys and
/// parameters). The input was checked by the caller.
pub(super) async fn create(inner: &Inner, params: &BatchCreateParams) -> Result<BatchJob> {
    let doing = format!("creating a batch of job {}", params.name);
    let (id, now) = tx::transaction!(&inner.pool, &doing, |conn| async {
        let now = now(&mut *conn).await?;
        let strategy = params.strategy.to_string();
        let done = sqlx::query(BATCH_INSERT)
            .bind(params.name.as_str())
            .bind(&strategy)
            .bind(params.stealing)
            .bind(now.as_millis())
            .execute(&mut *conn)
            .await?;
        let id = i64::try_from(done.last_insert_id()).unwrap_or(i64::MAX);
        for chunk in chunks(&params.partitions) {
            insert_partitions(&mut *conn, id, chunk, now.as_millis()).await?;
        }
        wakeups::raise(&mut *conn, PENDING).await?;
        Ok((id, now))
    })?;
    inner.bell.ring().await;
    Ok(BatchJob {
        id,
        name: params.name.clone(),
        strategy: params.strategy,
        stealing: params.stealing,
        state: BatchState::Running,
        created_at: now,
        finished_at: None,
        failure: None,
    })
}

/// The partitions in order, cut into runs of at most [`MOST_ROWS`] partitions and
/// [`INSERT_BYTES`] of keys and parameters (or a single partition).
fn chunks(partitions: &[AssignedPartition]) -> Vec<&[AssignedPartition]> {
    let mut chunks = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (i, partition) in partitions.iter().enumerate() {
        let size = partition.spec.key.as_str().len() + partition.spec.params.as_str().len();
        if i > start && (i - start == MOST_ROWS || bytes + size > INSERT_BYTES) {
            chunks.push(&partitions[start..i]);
            (start, bytes) = (i, 0);
        }
        bytes += size;
    }
    chunks.push(&partitions[start..]);
    chunks
}

async fn insert_partitions(
    conn: &mut MySqlConnection,
    batch: i64,
    partitions: &[AssignedPartition],
    now: i64,
) -> Result<(), Failure> {
    let row = "(?, ?, ?, ?, 'pending', ?, ?)";
    let statement = lists::rows(PARTITION_INSERT, row, partitions.len());
    let mut query = sqlx::query(sqlx::AssertSqlSafe(statement)).persistent(false);
    for partition in partitions {
        query = query
            .bind(batch)
            .bind(partition.spec.key.as_str())
            .bind(partition.spec.params.as_str())
            .bind(partition.spec.transferable)
            .bind(partition.node.as_ref().map(|node| node.as_str()))
            .bind(now);
    }
    query.execute(conn).await?;
    Ok(())
}

/// Finishes a running batch whose partitions are all final: the batch is locked (finishers
/// take turns), its tally read and, when the verdict is in, recorded.
pub(super) async fn finish(inner: &Inner, id: i64) -> Result<BatchJob> {
    let doing = format!("finishing batch {id}");
    tx::transaction!(&inner.pool, &doing, |conn| async {
        let row: Option<BatchRow> =
            sqlx::query_as(BATCH_LOCK).bind(id).fetch_optional(&mut *conn).await?;
        let Some(mut batch) = row.map(BatchRow::into_batch).transpose()? else {
            return Err(batch_not_found(id).into());
        };
        let verdict = match batch.state {
            BatchState::Running => verdict(&tally(&mut *conn, id).await?),
            _ => None,
        };
        let Some(verdict) = verdict else {
            return Ok(batch);
        };
        let now = now(&mut *conn).await?;
        sqlx::query(BATCH_FINISH)
            .bind(verdict.state.as_str())
            .bind(verdict.failure.as_deref())
            .bind(now.as_millis())
            .bind(id)
            .execute(&mut *conn)
            .await?;
        (batch.state, batch.failure, batch.finished_at) =
            (verdict.state, verdict.failure, Some(now));
        Ok(batch)
    })
}

/// What the verdict needs of a batch's partitions; the failed ones are read only once every
/// partition is final.
async fn tally(conn: &mut MySqlConnection, id: i64) -> Result<BatchTally, Failure> {
    let (unfinished, failed): (i64, i64) =
        sqlx::query_as(BATCH_TALLY).bind(id).fetch_one(&mut *conn).await?;
    let count = |value: i64| u64::try_from(value).map_err(|_| corrupt("count", &value.to_string()));
    let mut tally = BatchTally {
        unfinished: count(unfinished)?,
        failed: count(failed)?,
        first_failed: Vec::new(),
    };
    if tally.unfinished > 0 || tally.failed == 0 {
        return Ok(tally);
    }
    let listed = i64::try_from(LISTED_FAILURES).unwrap_or(i64::MAX);
    let rows: Vec<(String, Option<String>)> =
        sqlx::query_as(BATCH_FIRST_FAILED).bind(id).bind(listed).fetch_all(conn).await?;
    for (key, error) in rows {
        let key = PartitionKey::new(&key).map_err(|_| corrupt("partition key", &key))?;
        tally.first_failed.push((key, error.unwrap_or_default()));
    }
    Ok(tally)
}
