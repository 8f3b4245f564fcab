//! Batch writes: creating a batch with all its partitions, and finishing it by the core's
//! verdict once every partition is final.

use baton_core::Result;
use baton_core::cluster::{
    AssignedPartition, BatchCreateParams, BatchJob, BatchState, BatchTally, LISTED_FAILURES,
    PartitionKey, batch_not_found, verdict,
};
use sqlx::SqliteConnection;

use super::Inner;
use super::rows::BatchRow;
use crate::error::{corrupt, from_sqlx};
use crate::json::{Cell, Rows};
use crate::tx;

/// The most bytes of partition keys and parameters one insert statement carries; a batch
/// beyond it takes several, so that no argument nears SQLite's length limit (1 GB), even with
/// every character escaped.
const INSERT_BYTES: usize = 64 << 20;

/// Creates a running batch and its pending partitions, numbered in the order given: one
/// statement for the batch and one for its partitions (one per 64 MiB of keys and
/// parameters); nothing when the input is refused.
pub(super) async fn create(inner: &Inner, params: BatchCreateParams) -> Result<BatchJob> {
    params.check()?;
    let chunks = partition_rows(&params.partitions, INSERT_BYTES);
    let doing = format!("creating a batch of job {}", params.name);
    let mut tx = tx::begin(&inner.write, &doing).await?;
    let now = inner.now();
    let row: BatchRow = sqlx::query_as(include_str!("../../queries/batch_insert.sql"))
        .bind(params.name.as_str())
        .bind(params.strategy.to_string())
        .bind(now.as_millis())
        .bind(params.stealing)
        .fetch_one(&mut *tx)
        .await
        .map_err(|err| from_sqlx(&doing, err))?;
    let batch = row.into_batch()?;
    for chunk in chunks {
        sqlx::query(include_str!("../../queries/partition_insert.sql"))
            .bind(batch.id)
            .bind(now.as_millis())
            .bind(chunk)
            .execute(&mut *tx)
            .await
            .map_err(|err| from_sqlx(&doing, err))?;
    }
    tx::commit(tx, &doing).await?;
    inner.wake_claimers();
    Ok(batch)
}

/// The partitions as JSON arrays of `[key, params, transferable, node]`, in order, each
/// carrying at most `per_array` bytes of keys and parameters (or a single partition).
fn partition_rows(partitions: &[AssignedPartition], per_array: usize) -> Vec<String> {
    let mut chunks = Vec::new();
    let (mut rows, mut bytes) = (Rows::default(), 0);
    for partition in partitions {
        let spec = &partition.spec;
        let size = spec.key.as_str().len() + spec.params.as_str().len();
        if rows.len() > 0 && bytes + size > per_array {
            chunks.push(std::mem::take(&mut rows).finish());
            bytes = 0;
        }
        rows.push(&[
            spec.key.as_str().into(),
            spec.params.as_str().into(),
            Cell::Int(i64::from(spec.transferable)),
            partition.node.as_ref().map(|node| node.as_str()).into(),
        ]);
        bytes += size;
    }
    chunks.push(rows.finish());
    chunks
}

/// Finishes a running batch whose partitions are all final: the batch and its tally are read
/// (two or three statements) and, when the verdict is in, one statement records it.
pub(super) async fn finish(inner: &Inner, id: i64) -> Result<BatchJob> {
    let doing = format!("finishing batch {id}");
    let mut tx = tx::begin(&inner.write, &doing).await?;
    let now = inner.now();
    let row: Option<BatchRow> = sqlx::query_as(include_str!("../../queries/batch_get.sql"))
        .bind(id)
        .fetch_optional(&mut *tx)
        .await
        .map_err(|err| from_sqlx(&doing, err))?;
    let Some(batch) = row.map(BatchRow::into_batch).transpose()? else {
        tx::finish_unchanged(tx).await;
        return Err(batch_not_found(id));
    };
    let verdict = match batch.state {
        BatchState::Running => verdict(&tally(&mut tx, id, &doing).await?),
        _ => None,
    };
    let Some(verdict) = verdict else {
        tx::finish_unchanged(tx).await;
        return Ok(batch);
    };
    let row: BatchRow = sqlx::query_as(include_str!("../../queries/batch_finish.sql"))
        .bind(id)
        .bind(now.as_millis())
        .bind(verdict.state.as_str())
        .bind(verdict.failure)
        .fetch_one(&mut *tx)
        .await
        .map_err(|err| from_sqlx(&doing, err))?;
    let finished = row.into_batch()?;
    tx::commit(tx, &doing).await?;
    Ok(finished)
}

/// What the verdict needs of a batch's partitions; the failed ones are read only once every
/// partition is final.
async fn tally(conn: &mut SqliteConnection, id: i64, doing: &str) -> Result<BatchTally> {
    let (unfinished, failed): (i64, i64) =
        sqlx::query_as(include_str!("../../queries/batch_tally.sql"))
            .bind(id)
            .fetch_one(&mut *conn)
            .await
            .map_err(|err| from_sqlx(doing, err))?;
    let count = |value: i64| u64::try_from(value).map_err(|_| corrupt("partition count", value));
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
        sqlx::query_as(include_str!("../../queries/batch_first_failed.sql"))
            .bind(id)
            .bind(listed)
            .fetch_all(conn)
            .await
            .map_err(|err| from_sqlx(doing, err))?;
    for (key, error) in rows {
        let key = PartitionKey::new(&key).map_err(|_| corrupt("partition key", &key))?;
        tally.first_failed.push((key, error.unwrap_or_default()));
    }
    Ok(tally)
}

#[cfg(test)]
mod tests {
    use baton_core::cluster::{JsonText, NodeId, PartitionSpec};

    use super::*;

    fn assigned(
        key: &str,
        params: &str,
        transferable: bool,
        node: Option<&str>,
    ) -> AssignedPartition {
        let spec =
            PartitionSpec::new(PartitionKey::new(key).unwrap(), JsonText::new(params).unwrap())
                .with_transferable(transferable);
        AssignedPartition { spec, node: node.map(|id| NodeId::new(id).unwrap()) }
    }

    #[test]
    fn partitions_travel_in_order_in_arrays_of_bounded_size() {
        let partitions = [
            assigned("a", "{}", true, Some("n1")),
            assigned("b", r#""q""#, true, None),
            assigned("c", "1234567", false, None),
        ];
        let (a, b, c) =
            (r#"["a","{}",1,"n1"]"#, r#"["b","\"q\"",1,null]"#, r#"["c","1234567",0,null]"#);
        assert_eq!(partition_rows(&partitions, 1000), [format!("[{a},{b},{c}]")]);
        assert_eq!(
            partition_rows(&partitions, 7),
            [format!("[{a},{b}]"), format!("[{c}]")],
            "a partition larger than the bound travels alone"
        );
    }
}
