//! Reading a batch back from the store: its partitions, and waiting for it to finish.

use std::time::Duration;

use baton::cluster::{BatchJob, BatchState, ClusterStore, Partition};
use baton::core::cluster::PartitionListParams;

use crate::error::EtlError;

/// Partitions read per store call.
const PAGE: u32 = 1000;

/// Every partition of batch `batch`, in id order.
pub async fn partitions(store: &dyn ClusterStore, batch: i64) -> baton::Result<Vec<Partition>> {
    let mut all = Vec::new();
    let mut after = None;
    loop {
        let params = PartitionListParams { batch, state: None, after, limit: PAGE };
        let page = store.partition_list(params).await?;
        all.extend(page.items);
        match page.next {
            Some(next) => after = Some(next),
            None => return Ok(all),
        }
    }
}

/// Waits until batch `batch` is final, reading it every `every`. The cluster leader marks a
/// batch final at its first step after the last partition finished.
pub async fn finished(
    store: &dyn ClusterStore,
    batch: i64,
    every: Duration,
) -> Result<BatchJob, EtlError> {
    loop {
        let found = store.batch_get(batch).await?;
        let batch =
            found.ok_or_else(|| EtlError::Mismatch(format!("batch {batch} does not exist")))?;
        if batch.state != BatchState::Running {
            return Ok(batch);
        }
        tokio::time::sleep(every).await;
    }
}
