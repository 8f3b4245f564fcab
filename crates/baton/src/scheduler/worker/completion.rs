//! The completion loop: records the outcomes of the handlers that finished, all those
//! waiting in one call, so that a busy worker spends one round trip on many outcomes and an
//! idle one waits for none.

use std::sync::Arc;
use std::time::Duration;

use baton_core::ErrorKind;
use baton_core::job::CompleteParams;
use baton_core::schedule::JobName;
use tokio::sync::{OwnedSemaphorePermit, mpsc};
use tokio::time::sleep;
use tokio_util::sync::CancellationToken;

use super::Worker;

/// The most outcomes recorded in one call.
const BATCH: usize = 256;
/// How long the loop waits before recording again outcomes whose recording failed.
const RETRY: Duration = Duration::from_millis(200);

/// A finished handler's outcome, with the slot it holds until the outcome is sent to the
/// store, so that outcomes waiting to be recorded never outnumber the slots.
pub(crate) struct Finished {
    pub(super) job: JobName,
    pub(super) params: CompleteParams,
    pub(super) slot: OwnedSemaphorePermit,
}

impl Worker {
    /// Records outcomes until the channel closes (after the last handler of a shutdown) or
    /// `halt` fires (the scheduler was dropped).
    pub(crate) async fn completion_loop(
        self: Arc<Self>,
        mut outcomes: mpsc::UnboundedReceiver<Finished>,
        halt: CancellationToken,
    ) {
        let mut finished = Vec::with_capacity(BATCH);
        loop {
            let received = tokio::select! {
                biased;
                () = halt.cancelled() => return,
                received = outcomes.recv_many(&mut finished, BATCH) => received,
            };
            if received == 0 {
                return;
            }
            // The slots are returned as the call goes out, so that the next claim overlaps it.
            let mut pending: Vec<(JobName, CompleteParams)> = finished
                .drain(..)
                .map(|done| {
                    drop(done.slot);
                    (done.job, done.params)
                })
                .collect();
            self.freed.notify_one();
            while !pending.is_empty() {
                pending = self.record(pending).await;
                if !pending.is_empty() {
                    sleep(RETRY).await;
                }
            }
        }
    }

    /// Records outcomes in one call, and answers those to try again: the ones that failed for
    /// a reason that may pass (the store unreachable, a deadlock) and whose claims still hold,
    /// heartbeated meanwhile, until their deadlines. A stale token is final:
    /// the execution is no longer this node's.
    async fn record(
        &self,
        pending: Vec<(JobName, CompleteParams)>,
    ) -> Vec<(JobName, CompleteParams)> {
        let batch = pending.iter().map(|(_, params)| params.clone()).collect();
        let results = self.store.complete_batch(batch).await;
        let mut again = Vec::new();
        for ((job, params), result) in pending.into_iter().zip(results) {
            let id = params.id;
            match result {
                Ok(_) => {
                    crate::metrics::execution_finished(&job, params.status);
                    self.claims.remove(&id);
                }
                Err(err) => {
                    let ours =
                        self.claims.get(&id).is_some_and(|claim| claim.ensure_valid().is_ok());
                    if ours && transient(&err) {
                        tracing::warn!(%job, execution = id, %err, "recording the outcome failed, retrying");
                        again.push((job, params));
                    } else {
                        self.claims.remove(&id);
                        tracing::warn!(%job, execution = id, %err, "recording the outcome failed");
                    }
                }
            }
        }
        again
    }
}

/// Whether a failed call may succeed if tried again.
fn transient(err: &baton_core::Error) -> bool {
    matches!(err.kind(), ErrorKind::Unavailable | ErrorKind::Timeout | ErrorKind::Conflict)
}
