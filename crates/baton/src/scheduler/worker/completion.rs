//! The completion loop: records the outcomes of the handlers that finished, all those
//! waiting in one call, so that a busy worker spends one round trip on many outcomes and an
//! idle one waits for none.

use std::sync::Arc;

use baton_core::job::CompleteParams;
use baton_core::schedule::JobName;
use tokio::sync::{OwnedSemaphorePermit, mpsc};

use super::Worker;

/// The most outcomes recorded in one call.
const BATCH: usize = 256;

/// A finished handler's outcome, with the slot it holds until the outcome is sent to the
/// store, so that outcomes waiting to be recorded never outnumber the slots.
pub(crate) struct Finished {
    pub(super) job: JobName,
    pub(super) params: CompleteParams,
    pub(super) slot: OwnedSemaphorePermit,
}

impl Worker {
    /// Records outcomes until the channel closes (after the last handler of a shutdown).
    pub(crate) async fn completion_loop(
        self: Arc<Self>,
        mut outcomes: mpsc::UnboundedReceiver<Finished>,
    ) {
        let mut finished = Vec::with_capacity(BATCH);
        while outcomes.recv_many(&mut finished, BATCH).await > 0 {
            // The slots are returned as the call goes out, so that the next claim overlaps it.
            let (jobs, batch): (Vec<_>, Vec<_>) = finished
                .drain(..)
                .map(|done| {
                    drop(done.slot);
                    (done.job, done.params)
                })
                .unzip();
            self.freed.notify_one();
            let ids: Vec<i64> = batch.iter().map(|params| params.id).collect();
            let results = self.store.complete_batch(batch).await;
            let mut running = self.running();
            for ((id, job), result) in ids.into_iter().zip(jobs).zip(results) {
                running.remove(&id);
                if let Err(err) = result {
                    tracing::warn!(%job, execution = id, %err, "recording the outcome failed");
                }
            }
        }
    }
}
