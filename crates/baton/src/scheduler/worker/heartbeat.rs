//! The heartbeat loop: one call per interval for every execution this node runs, and the
//! local deadline after which an execution whose heartbeats were not confirmed is stopped.

use std::sync::Arc;

use baton_core::FencingToken;
use baton_core::job::HeartbeatParams;
use tokio::time::{Instant, sleep};
use tokio_util::sync::CancellationToken;

use super::{StopReason, Worker};

impl Worker {
    /// Heartbeats the running executions every interval until `stop` fires, and stops any
    /// execution whose last confirmed heartbeat is older than the local deadline: it stops
    /// before the leader can abandon it and start a retry elsewhere (I3).
    pub(crate) async fn heartbeat_loop(self: Arc<Self>, stop: CancellationToken) {
        let deadline = self.local_deadline();
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                () = sleep(self.config.heartbeat_interval) => {}
            }
            let executions: Vec<(i64, FencingToken)> =
                self.running().iter().map(|(id, running)| (*id, running.token)).collect();
            if !executions.is_empty() {
                let sent = Instant::now();
                let params = HeartbeatParams { node: self.node.clone(), executions };
                match self.store.heartbeat(params).await {
                    Ok(outcome) => {
                        self.confirm(sent, &outcome.lost);
                        self.stop(&outcome.lost, StopReason::Lost);
                        self.stop(&outcome.cancel, StopReason::Cancelled);
                    }
                    Err(err) => tracing::warn!(%err, "heartbeat failed"),
                }
            }
            let overdue: Vec<i64> = self
                .running()
                .iter()
                .filter(|(_, running)| running.confirmed.elapsed() > deadline)
                .map(|(id, _)| *id)
                .collect();
            if !overdue.is_empty() {
                tracing::warn!(executions = ?overdue, ?deadline,
                    "no heartbeat confirmed within the deadline: stopping before a retry can start elsewhere");
                self.stop(&overdue, StopReason::Lost);
            }
        }
    }

    /// Records that the store confirmed, for a call sent at `sent`, every running execution
    /// but the `lost` ones.
    fn confirm(&self, sent: Instant, lost: &[i64]) {
        for (id, running) in self.running().iter_mut() {
            if !lost.contains(id) {
                running.confirmed = running.confirmed.max(sent);
            }
        }
    }
}
