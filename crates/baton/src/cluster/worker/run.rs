//! Running one partition: its handler under the partition's token until it returns or is
//! told to stop, then its outcome recorded under the same token.

use std::sync::Arc;

use baton_core::FencingToken;
use baton_core::cluster::{Partition, PartitionCompleteParams, PartitionFailParams};
use tokio::time::{Instant, sleep};
use tokio_util::sync::CancellationToken;

use super::{Running, Worker};
use crate::claim;
use crate::cluster::{PartitionContext, PartitionResult, PartitionedJob};

/// The most batches whose job a worker remembers; past it, it forgets them all and reads
/// them again as their partitions come.
const KNOWN_BATCHES: usize = 1024;

impl Worker {
    /// Starts a partition claimed by the incarnation `under` in a call sent at `sent`, unless
    /// that incarnation was given up meanwhile: its successor's registration hands the
    /// partition over.
    pub(super) fn start(
        self: &Arc<Self>,
        partition: Partition,
        under: FencingToken,
        sent: Instant,
    ) {
        let Some(token) = partition.token else {
            tracing::error!(partition = partition.id, "a claimed partition has no token");
            return;
        };
        let (id, progress) = (partition.id, partition.progress);
        let (claim, cancel) = {
            let local = self.local();
            if local.fenced || local.token != under {
                tracing::info!(
                    partition = id,
                    "not starting a partition claimed by an incarnation given up since"
                );
                return;
            }
            let what = format!("partition {id}");
            let claim = self.partitions.hold(id, what, token, sent, |claim| Running {
                stop: claim.cancellation().child_token(),
                progress,
            });
            let held = self.partitions.lock();
            self.count.send_replace(held.len());
            let Some(cancel) = held.get(&id).map(|held| held.state.stop.clone()) else { return };
            (claim, cancel)
        };
        let worker = self.clone();
        self.handlers.spawn(async move {
            if let Some(outcome) = worker.execute(partition, token, &cancel).await {
                worker.record(id, token, outcome, &cancel).await;
            }
            worker.partitions.forget(&id, &claim);
            worker.count.send_replace(worker.partitions.lock().len());
        });
    }

    /// Runs the partition's handler to its end and answers its outcome, or `None` when the
    /// partition was told to stop before the handler returned: the handler then has a short
    /// grace to return before it is aborted, and whatever it returns is not recorded.
    async fn execute(
        self: &Arc<Self>,
        partition: Partition,
        token: FencingToken,
        cancel: &CancellationToken,
    ) -> Option<PartitionResult> {
        let id = partition.id;
        let job = match self.job_of(partition.batch, cancel).await? {
            Ok(job) => job,
            Err(why) => return Some(Err(why)),
        };
        let ctx = PartitionContext::new(self.clone(), job.name, partition, token, cancel.clone());
        // Panic-isolated, so that a panic fails the partition instead of losing it.
        let mut handler = claim::isolated(&self.handlers, job.handler.run(ctx));
        let returned = tokio::select! {
            biased;
            joined = handler.join() => Some(joined),
            () = cancel.cancelled() => None,
        };
        match returned {
            Some(joined) if !cancel.is_cancelled() => {
                return Some(joined.and_then(|result| result));
            }
            Some(_) => {}
            None => handler.stop(self.config.stop_grace()).await,
        }
        let reason = self.partitions.get(&id).and_then(|claim| claim.end_reason());
        tracing::warn!(partition = id, ?reason, "partition stopped before it finished");
        None
    }

    /// The job of a batch, read once per batch and retried every heartbeat interval until it
    /// is read or the partition is told to stop (`None`); an error when this node has no
    /// handler for it.
    async fn job_of(
        &self,
        batch: i64,
        cancel: &CancellationToken,
    ) -> Option<Result<PartitionedJob, String>> {
        loop {
            let known = self.batches().get(&batch).cloned();
            let name = match known {
                Some(name) => Ok(Some(name)),
                None => self.store.batch_get(batch).await.map(|found| found.map(|b| b.name)),
            };
            match name {
                Ok(Some(name)) => {
                    let mut batches = self.batches();
                    if batches.len() >= KNOWN_BATCHES {
                        batches.clear();
                    }
                    batches.insert(batch, name.clone());
                    return Some(self.jobs.get(&name).cloned().ok_or_else(|| {
                        format!("node {} has no handler for job {name}", self.node())
                    }));
                }
                Ok(None) => return Some(Err(format!("batch {batch} does not exist"))),
                Err(err) => {
                    tracing::warn!(batch, %err, "reading a partition's batch failed, retrying")
                }
            }
            tokio::select! {
                biased;
                () = cancel.cancelled() => return None,
                () = sleep(self.config.heartbeat_interval) => {}
            }
        }
    }

    /// Records a partition's outcome under its token. A call whose outcome is unknown is sent
    /// again every heartbeat interval, while heartbeats keep the partition claimed, until it
    /// is answered or the partition is told to stop; the token makes a repeat safe: if the
    /// first call took effect, the repeat is refused and changes nothing.
    async fn record(
        &self,
        id: i64,
        token: FencingToken,
        outcome: PartitionResult,
        cancel: &CancellationToken,
    ) {
        if let Err(error) = &outcome {
            tracing::warn!(partition = id, %token, %error, "the partition's handler failed");
        }
        loop {
            let recorded = match &outcome {
                Ok(result) => {
                    let params = PartitionCompleteParams { id, token, result: result.clone() };
                    self.store.partition_complete(params).await
                }
                Err(error) => {
                    let params = PartitionFailParams { id, token, error: error.clone() };
                    self.store.partition_fail(params).await
                }
            };
            match recorded {
                Ok(partition) => {
                    tracing::debug!(partition = id, state = %partition.state, "partition finished");
                    return;
                }
                Err(err) if !err.kind().outcome_unknown() => {
                    tracing::warn!(partition = id, %err, "the partition's outcome was refused");
                    return;
                }
                Err(err) => {
                    tracing::warn!(partition = id, %err,
                        "recording the partition's outcome failed, retrying");
                }
            }
            tokio::select! {
                biased;
                () = cancel.cancelled() => return,
                () = sleep(self.config.heartbeat_interval) => {}
            }
        }
    }
}
