//! The cluster leader's term: every heartbeat interval, and just after the oldest active node
//! can become unreachable when that comes first, it sweeps silent nodes, moves the partitions
//! of departed nodes, rebalances the batches that do, finishes the batches whose partitions
//! are all final, and calls their callbacks.

use std::sync::Arc;

use baton_core::Result;
use baton_core::cluster::{
    BatchJob, BatchListParams, BatchState, ClusterStore, NodeSweepParams, NodeThresholds,
    Partition, PartitionListParams, PartitionReassignParams, PartitionState,
};
use tokio::time::{Instant, sleep_until};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::next_sweep::unreachable_at;
use super::pages::{PAGE, all_pages};
use super::worker::Jobs;
use crate::{Campaign, LeaderHandle};

/// What the leader works with.
pub(crate) struct Leader {
    pub(crate) store: Arc<dyn ClusterStore>,
    pub(crate) jobs: Arc<Jobs>,
    pub(crate) thresholds: NodeThresholds,
    /// Where batch callbacks run; a shutdown waits for them.
    pub(crate) callbacks: TaskTracker,
}

impl Leader {
    /// Leads each term the campaign wins until `stop` fires; dropping the campaign then
    /// releases the leadership.
    pub(crate) async fn lead(self, campaign: Campaign, stop: CancellationToken) {
        loop {
            let term = tokio::select! {
                biased;
                () = stop.cancelled() => return,
                term = campaign.leader() => term,
            };
            let Ok(term) = term else {
                // The campaign logged why; this node keeps working without leading.
                return;
            };
            tracing::info!(token = %term.token(), "cluster leader term started");
            tokio::select! {
                biased;
                () = stop.cancelled() => return,
                () = term.cancelled() => {}
                () = self.run_term(&term) => {}
            }
            tracing::info!(token = %term.token(), "cluster leader term ended");
        }
    }

    /// One step at once, then one a heartbeat interval after the start of the last, or just
    /// after the oldest active node can become unreachable when that comes first, for as long
    /// as the term lasts; a failed step is tried again a heartbeat interval later.
    async fn run_term(&self, term: &LeaderHandle) {
        loop {
            let tick = Instant::now() + self.thresholds.heartbeat_interval();
            let wake = match self.step(term).await {
                Ok(unreachable) => unreachable.map_or(tick, |at| at.min(tick)),
                Err(err) => {
                    tracing::warn!(%err, "cluster leader step failed, retrying");
                    tick
                }
            };
            sleep_until(wake).await;
        }
    }

    /// Sweeps, moves, rebalances and finishes; answers when the oldest active node left can become
    /// unreachable.
    async fn step(&self, term: &LeaderHandle) -> Result<Option<Instant>> {
        term.ensure_valid()?;
        let thresholds = self.thresholds;
        let swept = self.store.node_sweep(NodeSweepParams { thresholds }).await?;
        let unreachable = unreachable_at(&swept, &thresholds, Instant::now());
        for change in &swept.changes {
            tracing::warn!(node = %change.node, token = %change.token, to = %change.to,
                "node went silent");
        }
        self.reassign(term).await?;
        let running = self.running_batches().await?;
        self.rebalance(term, &running).await?;
        self.finish_batches(term, running).await?;
        Ok(unreachable)
    }

    /// Moves (or fails) the partitions of nodes that are gone, a page at a time.
    async fn reassign(&self, term: &LeaderHandle) -> Result<()> {
        loop {
            term.ensure_valid()?;
            let params = PartitionReassignParams { limit: PAGE };
            let reassigned = self.store.partition_reassign(params).await?;
            for moved in &reassigned.moved {
                let to = moved.node.as_ref().map_or("any node", |node| node.as_str());
                tracing::info!(partition = moved.id, batch = moved.batch, key = %moved.key, to,
                    "partition moved off a departed node");
            }
            for failed in &reassigned.failed {
                let error = failed.error.as_deref().unwrap_or("");
                tracing::warn!(partition = failed.id, batch = failed.batch, key = %failed.key,
                    error, "partition failed with its node");
            }
            if reassigned.moved.len() + reassigned.failed.len() < PAGE as usize {
                return Ok(());
            }
        }
    }

    /// Every running batch.
    async fn running_batches(&self) -> Result<Vec<BatchJob>> {
        let store = &self.store;
        all_pages(|after| {
            let state = Some(BatchState::Running);
            store.batch_list(BatchListParams { state, after, limit: PAGE, ..Default::default() })
        })
        .await
    }

    /// Finishes every running batch whose partitions are all final.
    async fn finish_batches(&self, term: &LeaderHandle, running: Vec<BatchJob>) -> Result<()> {
        for batch in running {
            term.ensure_valid()?;
            let batch = self.store.batch_finish(batch.id).await?;
            if batch.state != BatchState::Running {
                self.finished(batch);
            }
        }
        Ok(())
    }

    /// Calls the callback of a batch just finished, if its job has one here, in a task of its
    /// own: with every partition after a success, the failed ones after a failure.
    fn finished(&self, batch: BatchJob) {
        tracing::info!(batch = batch.id, job = %batch.name, state = %batch.state,
            failure = batch.failure.as_deref().unwrap_or(""), "batch finished");
        let Some(job) = self.jobs.get(&batch.name) else { return };
        let (callback, only) = if batch.state == BatchState::Succeeded {
            (job.on_success.clone(), None)
        } else {
            (job.on_failure.clone(), Some(PartitionState::Failed))
        };
        let Some(callback) = callback else { return };
        let store = self.store.clone();
        self.callbacks.spawn(async move {
            match partitions(&*store, batch.id, only).await {
                Ok(partitions) => callback.call(batch, partitions).await,
                Err(err) => tracing::warn!(batch = batch.id, %err,
                    "cannot read the partitions of a finished batch: its callback is not called"),
            }
        });
    }
}

/// Every partition of a batch, or only those in one state.
async fn partitions(
    store: &dyn ClusterStore,
    batch: i64,
    state: Option<PartitionState>,
) -> Result<Vec<Partition>> {
    all_pages(|after| {
        store.partition_list(PartitionListParams { batch, state, after, limit: PAGE })
    })
    .await
}
