//! The heartbeat loop: one call per interval for the node and every partition it runs, and
//! the local deadline after which a node whose heartbeats were not confirmed stops its work.

use std::sync::Arc;

use baton_core::cluster::{NodeHeartbeatParams, PartitionBeat};
use baton_core::{Error, ErrorKind, Result};
use tokio::time::{Instant, sleep_until, timeout_at};
use tokio_util::sync::CancellationToken;

use super::{StopReason, Worker};

impl Worker {
    /// Heartbeats every interval until `stop` fires. Partitions the store reports lost are
    /// stopped; the incarnation is given up (every partition stopped, then a new registration)
    /// when the store fences it or when no heartbeat was confirmed within the deadline, so
    /// that the node stops before its partitions can move elsewhere (I3).
    pub(crate) async fn heartbeat_loop(self: Arc<Self>, stop: CancellationToken) {
        let mut next = Instant::now() + self.config.heartbeat_interval;
        loop {
            let deadline = self.deadline(&self.local());
            tokio::select! {
                () = stop.cancelled() => return,
                () = sleep_until(next.min(deadline)) => {}
            }
            if Instant::now() >= deadline {
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

    /// One heartbeat, abandoned at the deadline; confirms the incarnation from the send time.
    async fn beat(&self, deadline: Instant) -> Result<()> {
        let params = {
            let local = self.local();
            let partitions = local.running.iter().map(|(id, running)| PartitionBeat {
                id: *id,
                token: running.token,
                progress: running.progress,
            });
            NodeHeartbeatParams {
                node: self.node().clone(),
                token: local.token,
                load: u32::try_from(local.running.len()).unwrap_or(u32::MAX),
                partitions: partitions.collect(),
            }
        };
        let sent = Instant::now();
        let outcome =
            timeout_at(deadline, self.store.node_heartbeat(params)).await.map_err(|_| {
                Error::new(ErrorKind::Timeout, "no answer to the heartbeat by the deadline")
            })??;
        {
            let mut local = self.local();
            local.confirmed = local.confirmed.max(sent);
        }
        if !outcome.lost.is_empty() {
            tracing::debug!(partitions = ?outcome.lost, "partitions no longer held: stopping them");
            self.stop(&outcome.lost, StopReason::Lost);
        }
        Ok(())
    }
}
