//! The heartbeat loop: one call per interval for the node and every partition it runs, and
//! the local deadline after which a node whose heartbeats were not confirmed stops its work.

use std::sync::Arc;

use baton_core::cluster::{NodeHeartbeatParams, PartitionBeat};
use baton_core::{ErrorKind, Result};
use tokio::time::{Instant, sleep_until};
use tokio_util::sync::CancellationToken;

use super::Worker;
use crate::claim;
use crate::planted;

impl Worker {
    /// Heartbeats every interval until `stop` fires. Partitions the store reports lost are
    /// stopped; the incarnation is given up (every partition stopped, then a new registration)
    /// when the store fences it, when no heartbeat was confirmed within the deadline, or when
    /// the process stalled, so that the node stops before its partitions can move elsewhere
    /// (I3); and when the store may hold partitions for it that it does not run (a claim's
    /// answer was lost, or a claim lapsed while the node acts), so that they go back to the
    /// store instead of staying claimed by a live node for good.
    pub(crate) async fn heartbeat_loop(self: Arc<Self>, stop: CancellationToken) {
        let mut next = Instant::now() + self.config.heartbeat_interval;
        loop {
            let deadline = self.deadline(&self.local());
            let given_up = tokio::select! {
                biased;
                () = stop.cancelled() => return,
                () = self.stalled.notified() => Some("the process stalled"),
                () = self.orphaned.notified() => Some(
                    "the store may hold partitions this node does not run (a claim's answer was \
                     lost, or a claim lapsed): they go back to the store",
                ),
                () = sleep_until(next.min(deadline)) => None,
            };
            if let Some(why) = given_up {
                self.reincarnate(&stop, why).await;
            } else if Instant::now() >= deadline {
                self.reincarnate(&stop, "no heartbeat was confirmed within the deadline").await;
            } else {
                match self.beat(deadline).await {
                    Ok(()) => {}
                    Err(err) if err.kind() == ErrorKind::LeaseLost => {
                        self.reincarnate(&stop, "the store fenced this incarnation").await;
                    }
                    Err(err) => tracing::warn!(%err, "heartbeat failed"),
                }
            }
            next = Instant::now() + self.config.heartbeat_interval;
        }
    }

    /// One heartbeat, abandoned at the deadline; confirms the incarnation and the partitions it
    /// carried from the send time.
    async fn beat(&self, deadline: Instant) -> Result<()> {
        let (params, carried) = {
            let local = self.local();
            let held = self.partitions.lock();
            let live = held.iter().filter(|(_, held)| !held.claim.is_ended());
            let carried: Vec<_> = live.map(|(id, held)| (*id, held.claim.clone())).collect();
            let partitions = carried.iter().map(|(id, claim)| PartitionBeat {
                id: *id,
                token: claim.token(),
                progress: held.get(id).map_or(0, |held| held.state.progress),
            });
            let params = NodeHeartbeatParams {
                node: self.node().clone(),
                token: local.token,
                load: u32::try_from(held.len()).unwrap_or(u32::MAX),
                partitions: partitions.collect(),
            };
            (params, carried)
        };
        let sent = Instant::now();
        let outcome =
            claim::until(deadline, "node_heartbeat", self.store.node_heartbeat(params)).await?;
        {
            let mut local = self.local();
            local.confirmed = local.confirmed.max(sent);
        }
        for (id, claim) in &carried {
            if !outcome.lost.contains(id) {
                claim.confirm(planted::counted_from(sent));
            }
        }
        if !outcome.lost.is_empty() {
            tracing::debug!(partitions = ?outcome.lost, "partitions no longer held: stopping them");
            self.end(&outcome.lost, "the store no longer has it claimed under this token");
        }
        Ok(())
    }
}
