//! The claim loop: claims pending partitions for the free slots at once when the store tells
//! that partitions became pending (a batch created, partitions moved off a departed node) or
//! this node created a batch, and every heartbeat interval as a fallback; at once again when a
//! claim took all it asked for, and as soon as a slot frees up when every slot is busy.

use std::sync::Arc;

use baton_core::Result;
use baton_core::cluster::PartitionClaimParams;
use tokio::time::{Instant, sleep};
use tokio_util::sync::CancellationToken;

use super::Worker;
use super::pending::PendingFeed;
use crate::planted::{Bug, planted};

impl Worker {
    /// Claims and starts partitions until `stop` fires.
    pub(crate) async fn claim_loop(self: Arc<Self>, stop: CancellationToken) {
        // A claim naming no job would take partitions of every job.
        if self.jobs.is_empty() {
            return;
        }
        let max = self.config.max_concurrent;
        let mut count = self.count.subscribe();
        let mut pending = PendingFeed::default();
        loop {
            tokio::select! {
                biased;
                () = stop.cancelled() => return,
                free = count.wait_for(|running| *running < max) => if free.is_err() { return },
            }
            // Subscribed before the claim, so that nothing made pending after it is missed.
            tokio::select! {
                biased;
                () = stop.cancelled() => return,
                () = pending.subscribe(&*self.store) => {}
            }
            let claimed = tokio::select! {
                biased;
                () = stop.cancelled() => return,
                claimed = self.claim_once() => claimed,
            };
            match claimed {
                // It took all it asked for: more may be pending.
                Ok(true) => continue,
                Ok(false) => {}
                Err(err) if err.kind().outcome_unknown() && !planted(Bug::KeepLostClaim) => {
                    tracing::warn!(%err, "a claim's outcome is unknown; giving up the incarnation");
                    self.orphaned.notify_one();
                }
                Err(err) => tracing::warn!(%err, "claiming partitions failed, retrying"),
            }
            tokio::select! {
                biased;
                () = stop.cancelled() => return,
                () = sleep(self.config.heartbeat_interval) => {}
                () = self.nudge.notified() => {}
                () = pending.next() => {}
            }
        }
    }

    /// One claim for the free slots, under the current incarnation; answers whether it took
    /// all it asked for.
    async fn claim_once(self: &Arc<Self>) -> Result<bool> {
        let Some(token) = self.ready() else { return Ok(false) };
        let free = self.config.max_concurrent.saturating_sub(*self.count.borrow());
        let asked = free.min(self.config.claim_batch as usize);
        if asked == 0 {
            return Ok(false);
        }
        let params = PartitionClaimParams {
            node: self.node().clone(),
            token,
            limit: u32::try_from(asked).unwrap_or(u32::MAX),
            jobs: self.jobs.keys().cloned().collect(),
        };
        let sent = Instant::now();
        let claimed = self.store.partition_claim(params).await?;
        let full = claimed.len() >= asked;
        for partition in claimed {
            self.start(partition, token, sent);
        }
        Ok(full)
    }
}
