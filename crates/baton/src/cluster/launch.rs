//! Starting a batch of a partitioned job: the partitioner's specs for the live nodes,
//! checked, assigned by the job's strategy and stored at once.

use baton_core::Result;
use baton_core::cluster::{
    BatchCreateParams, BatchJob, ClusterStore, NodeListParams, NodeLoad, NodeState,
};

use super::PartitionedJob;
use super::pages::{PAGE, all_pages};

/// Creates a batch of `job`; nothing is stored when the partitioner fails or its specs are
/// refused.
pub(crate) async fn launch(store: &dyn ClusterStore, job: &PartitionedJob) -> Result<BatchJob> {
    let live = all_pages(|after| {
        store.node_list(NodeListParams { state: Some(NodeState::Active), after, limit: PAGE })
    })
    .await?;
    let live: Vec<NodeLoad> = live.iter().map(NodeLoad::from).collect();
    let specs = job.partitioner.partition(live.len()).await?;
    let mut params =
        BatchCreateParams::plan(job.name.clone(), job.strategy, specs, &live, job.max_partitions)?;
    params.stealing = job.stealing;
    let partitions = params.partitions.len();
    let batch = store.batch_create(params).await?;
    tracing::info!(batch = batch.id, job = %batch.name, strategy = %batch.strategy,
        stealing = batch.stealing, partitions, live_nodes = live.len(), "batch started");
    Ok(batch)
}
