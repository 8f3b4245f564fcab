//! The node's incarnation in the store: its registration, giving it up when the store fences
//! it or its heartbeats go unconfirmed, registering anew, and leaving.

use std::sync::{Arc, Mutex};

use baton_core::Result;
use baton_core::cluster::{ClusterStore, NodeLeaveParams};
use tokio::sync::{Notify, watch};
use tokio::time::{Instant, sleep};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::{Jobs, Local, Worker};
use crate::claim::Claims;
use crate::cluster::ClusterConfig;

impl Worker {
    /// Registers this node as a new incarnation and answers its worker; `halt` stops every
    /// partition it will run.
    pub(crate) async fn register(
        store: Arc<dyn ClusterStore>,
        config: ClusterConfig,
        jobs: Arc<Jobs>,
        halt: CancellationToken,
    ) -> Result<Self> {
        let sent = Instant::now();
        let node = store.node_register(config.registration()).await?;
        tracing::info!(node = %node.id, token = %node.token, "node registered");
        let local = Local { token: node.token, confirmed: sent, fenced: false };
        let partitions = Claims::new(config.act_for(), config.elector.stall_threshold, halt);
        Ok(Worker {
            store,
            config,
            jobs,
            local: Mutex::new(local),
            partitions,
            count: watch::Sender::new(0),
            batches: Mutex::default(),
            handlers: TaskTracker::new(),
            nudge: Notify::new(),
            stalled: Notify::new(),
            orphaned: Notify::new(),
        })
    }

    /// Gives up the current incarnation: stops every partition and waits until they have all
    /// ended, then registers a new incarnation, whose registration hands the old one's claimed
    /// partitions over. Registration is retried every heartbeat interval until it succeeds or
    /// `stop` fires.
    pub(super) async fn reincarnate(&self, stop: &CancellationToken, why: &str) {
        {
            let mut local = self.local();
            local.fenced = true;
            for (_, claim) in self.partitions.all() {
                claim.end(format!("its node gave up its incarnation: {why}"));
            }
        }
        tracing::warn!(node = %self.node(), why,
            "giving up this incarnation: stopping its partitions, then registering again");
        let mut count = self.count.subscribe();
        tokio::select! {
            biased;
            () = stop.cancelled() => return,
            _ = count.wait_for(|running| *running == 0) => {}
        }
        loop {
            let sent = Instant::now();
            let registered = tokio::select! {
                biased;
                () = stop.cancelled() => return,
                registered = self.store.node_register(self.config.registration()) => registered,
            };
            match registered {
                Ok(node) => {
                    let mut local = self.local();
                    (local.token, local.confirmed, local.fenced) = (node.token, sent, false);
                    tracing::info!(node = %node.id, token = %node.token,
                        "node registered again as a new incarnation");
                    return;
                }
                Err(err) => tracing::warn!(%err, "registering again failed, retrying"),
            }
            tokio::select! {
                biased;
                () = stop.cancelled() => return,
                () = sleep(self.config.heartbeat_interval) => {}
            }
        }
    }

    /// Leaves the cluster, which hands this node's partitions over at once; call it once no
    /// partition runs. A node that cannot leave is found unreachable instead.
    pub(crate) async fn leave(&self) {
        let params = NodeLeaveParams { node: self.node().clone(), token: self.local().token };
        match self.store.node_leave(params).await {
            Ok(node) => tracing::info!(node = %node.id, "node left the cluster"),
            Err(err) => tracing::warn!(%err,
                "leaving failed: the node's partitions move once it is found unreachable"),
        }
    }
}
