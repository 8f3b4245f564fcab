//! The heartbeat loop: one call per interval for every execution this node runs, bounded by
//! the earliest deadline it serves; each confirmed heartbeat moves the claims' deadlines.

use std::sync::Arc;

use baton_core::job::HeartbeatParams;
use tokio::time::{Instant, sleep};
use tokio_util::sync::CancellationToken;

use super::{StopReason, Worker};
use crate::claim;
use crate::planted;

impl Worker {
    /// Heartbeats the running executions every interval until `stop` fires. A heartbeat that
    /// gets no answer by the earliest deadline of the executions it carries is given up, so
    /// that the enforcer stops them at their deadlines: before the leader can abandon them and
    /// start a retry elsewhere (I3).
    pub(crate) async fn heartbeat_loop(self: Arc<Self>, stop: CancellationToken) {
        loop {
            tokio::select! {
                biased;
                () = stop.cancelled() => return,
                () = sleep(self.config.heartbeat_interval) => {}
            }
            let live = self.claims.live();
            let Some(earliest) = live.iter().map(|(_, claim)| claim.deadline()).min() else {
                continue;
            };
            let executions = live.iter().map(|(id, claim)| (*id, claim.token())).collect();
            let params = HeartbeatParams { node: self.node.clone(), executions };
            let sent = Instant::now();
            match claim::until(earliest, "heartbeat", self.store.heartbeat(params)).await {
                Ok(outcome) => {
                    for (id, claim) in &live {
                        if outcome.lost.contains(id) {
                            claim.end("the store no longer runs it under this token");
                        } else {
                            claim.confirm(planted::counted_from(sent));
                        }
                    }
                    self.stop(&outcome.cancel, StopReason::Cancelled);
                }
                Err(err) => tracing::warn!(%err, "heartbeat failed"),
            }
        }
    }
}
