//! Cluster metrics read at scrape time: node states and heartbeat ages, and the partitions
//! of running batches with their progress.

use std::collections::BTreeMap;

use baton::core::cluster::{
    BatchListParams, BatchState, ClusterStore, Node, NodeListParams, NodeState,
    PartitionListParams, PartitionState,
};
use baton::{Cursor, Result};

use super::exposition::{Exposition, Kind};

/// The most nodes one scrape reads.
const MAX_NODES: usize = 10_000;
/// The most running batches one scrape reads.
const MAX_BATCHES: u32 = 100;
/// The most partitions one scrape reads, over all running batches.
const MAX_PARTITIONS: usize = 10_000;
/// Records per page.
const PAGE: u32 = 1000;

/// Reads the nodes and the running batches and renders their metrics.
pub(crate) async fn collect(store: &dyn ClusterStore, out: &mut Exposition) -> Result<()> {
    let now = store.now().await?;
    let nodes = read_nodes(store).await?;
    let mut by_state: BTreeMap<&str, u64> =
        NodeState::ALL.iter().map(|s| (s.as_str(), 0)).collect();
    for node in &nodes {
        *by_state.entry(node.state.as_str()).or_default() += 1;
    }
    out.family("baton_nodes", Kind::Gauge, "Cluster nodes by state.");
    for (state, count) in &by_state {
        out.sample("baton_nodes", &[("state", state)], *count as f64);
    }
    out.family(
        "baton_node_heartbeat_age_seconds",
        Kind::Gauge,
        "Time since each active or unreachable node's last heartbeat, on the store's clock.",
    );
    for node in
        nodes.iter().filter(|n| matches!(n.state, NodeState::Active | NodeState::Unreachable))
    {
        let age = now.saturating_since(node.heartbeat_at).as_secs_f64();
        let labels = [("node", node.id.as_str()), ("state", node.state.as_str())];
        out.sample("baton_node_heartbeat_age_seconds", &labels, age);
    }
    partitions(store, out).await
}

async fn read_nodes(store: &dyn ClusterStore) -> Result<Vec<Node>> {
    let mut nodes = Vec::new();
    let mut after: Option<Cursor> = None;
    while nodes.len() < MAX_NODES {
        let page = store.node_list(NodeListParams { state: None, after, limit: PAGE }).await?;
        nodes.extend(page.items);
        match page.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    Ok(nodes)
}

async fn partitions(store: &dyn ClusterStore, out: &mut Exposition) -> Result<()> {
    let params = BatchListParams {
        state: Some(BatchState::Running),
        limit: MAX_BATCHES,
        ..BatchListParams::default()
    };
    let batches = store.batch_list(params).await?.items;
    let mut counts = Vec::new();
    let mut progress = Vec::new();
    let mut budget = MAX_PARTITIONS;
    for batch in &batches {
        let mut by_state: BTreeMap<&str, u64> =
            PartitionState::ALL.iter().map(|s| (s.as_str(), 0)).collect();
        let mut params = PartitionListParams { limit: PAGE, ..PartitionListParams::new(batch.id) };
        while budget > 0 {
            let page = store.partition_list(params.clone()).await?;
            for partition in page.items.iter().take(budget) {
                *by_state.entry(partition.state.as_str()).or_default() += 1;
                progress.push((
                    batch.name.to_string(),
                    batch.id,
                    partition.key.to_string(),
                    partition.progress,
                ));
            }
            budget = budget.saturating_sub(page.items.len());
            match page.next {
                Some(next) => params.after = Some(next),
                None => break,
            }
        }
        counts.push((batch.name.to_string(), batch.id, by_state));
    }
    out.family(
        "baton_batch_partitions",
        Kind::Gauge,
        "Partitions of each running batch by state (up to 10000 partitions per scrape).",
    );
    for (job, batch, by_state) in &counts {
        let batch = batch.to_string();
        for (state, count) in by_state {
            let labels = [("job", job.as_str()), ("batch", batch.as_str()), ("state", state)];
            out.sample("baton_batch_partitions", &labels, *count as f64);
        }
    }
    out.family(
        "baton_partition_progress",
        Kind::Gauge,
        "Units of work done by each partition of a running batch, as its node last reported.",
    );
    for (job, batch, key, units) in &progress {
        let batch = batch.to_string();
        let labels =
            [("job", job.as_str()), ("batch", batch.as_str()), ("partition", key.as_str())];
        out.sample("baton_partition_progress", &labels, *units as f64);
    }
    Ok(())
}
