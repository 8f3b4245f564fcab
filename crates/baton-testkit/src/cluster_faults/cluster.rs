//! The cluster's fault harness: three `baton-cluster-node` processes over one store, the
//! test's view of that store, a batch under way, and the checks every scenario ends with.

use std::sync::Arc;
use std::time::Duration;

use baton::cluster::{BatchState, ClusterStore, NodeId, Partition, PartitionState};
use baton::core::cluster::PartitionListParams;
use baton::core::cluster::{NodeChange, NodeChangeReason, NodeChangesParams, NodeState};
use baton::{LeaseStore, StoreTime};
use tokio::time::{Instant, sleep};

use crate::cluster_node::{
    self, CHECKPOINT_EVERY, Checkpoint, ClusterNode, Event, ITEMS_PER_PARTITION, PARTITIONS,
    Started,
};
use crate::faults::PATIENCE;
use crate::item_ledger::{ItemLedger, ItemReport};
use crate::node_args::NodeSetup;

/// How often the test rereads the store, or a node's events, while it waits for a condition.
const POLL: Duration = Duration::from_millis(50);
/// The node that leads and starts the batch.
pub(crate) const LEADER: &str = "a";
/// The worker every scenario strikes.
pub(crate) const STRUCK: &str = "b";
/// The other worker.
pub(crate) const OTHER: &str = "c";
/// The workers beside the leader, for scenarios that strike none of them.
pub(crate) const WORKERS: [&str; 2] = [STRUCK, OTHER];
/// A worker that joins while a batch runs.
pub(crate) const JOINER: &str = "d";

/// What a scenario measured.
#[derive(Debug, Clone, Default)]
pub struct Measured {
    /// Partitions of the struck worker that resumed elsewhere.
    pub moved: usize,
    /// From the fault to the last of them running again (store clock).
    pub resumed: Duration,
    /// Items committed by the struck worker after its last checkpoint, and so redone.
    pub redone: usize,
    /// Items on the ledger, each exactly once.
    pub items: usize,
    /// Commits refused by a fence.
    pub rejected: u64,
}

impl std::fmt::Display for Measured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} partitions moved, running again {:?} after the fault (store clock), {} items \
             redone; ledger: {} items once each, {} stale commits rejected, 0 accepted",
            self.moved, self.resumed, self.redone, self.items, self.rejected
        )
    }
}

/// What a batch left behind, as [`Cluster::finish_batch`] checked it.
pub(crate) struct Finished {
    /// Its partitions as stored.
    pub(crate) partitions: Vec<Partition>,
    /// The item ledger's check.
    pub(crate) report: ItemReport,
    /// Every event every node printed.
    pub(crate) events: Vec<Event>,
}

/// A partition the struck worker held when it was struck, as the store showed it.
#[derive(Debug, Clone)]
pub(crate) struct Held {
    pub(crate) key: String,
    token: u64,
    attempts: u32,
    checkpoint: Checkpoint,
}

/// Three node processes over one store, and the test's view of the store.
pub struct Cluster {
    setup: NodeSetup,
    store: Arc<dyn ClusterStore>,
    leases: Arc<dyn LeaseStore>,
    ledger: ItemLedger,
    nodes: Vec<ClusterNode>,
    /// Nodes killed or stopped: they cannot be asked to quit.
    gone: Vec<String>,
    batch: Option<i64>,
}

impl Cluster {
    /// Migrates the store, creates the item ledger, and connects the test's own view of the
    /// store, for nodes that `setup` runs.
    pub async fn new(setup: &NodeSetup) -> Cluster {
        let backend =
            baton::connect_split(&setup.leases, &setup.url).await.expect("connecting to the store");
        backend.migrate().await.expect("migrating the store");
        let ledger = ItemLedger::create(&setup.url).await.expect("creating the item ledger");
        Cluster {
            setup: setup.clone(),
            store: backend.cluster(),
            leases: backend.leases(),
            ledger,
            nodes: Vec::new(),
            gone: Vec::new(),
            batch: None,
        }
    }

    /// Starts node `name` on `url` and waits until it runs.
    pub(crate) async fn start(&mut self, name: &str, url: &str) {
        let setup = &self.setup;
        let mut node = ClusterNode::spawn(&setup.binary, [url, &setup.leases], setup.ttl, name);
        node.expect("READY", PATIENCE).await;
        self.nodes.push(node);
    }

    /// The node named `name`.
    pub(crate) fn node(&mut self, name: &str) -> &mut ClusterNode {
        self.nodes.iter_mut().find(|n| n.name == name).unwrap_or_else(|| panic!("no node {name}"))
    }

    /// The lease store, as the test sees it.
    pub(crate) fn leases(&self) -> &Arc<dyn LeaseStore> {
        &self.leases
    }

    /// SIGKILL of node `name`.
    pub(crate) async fn kill9(&mut self, name: &str) {
        self.node(name).kill9().await;
        self.gone.push(name.to_string());
    }

    /// Asks node `name` to shut down gracefully, and waits until it has.
    pub(crate) async fn quit(&mut self, name: &str) {
        self.node(name).quit(PATIENCE).await;
        self.gone.push(name.to_string());
    }

    /// Asks node `name` to start a batch, and waits until it has.
    pub(crate) async fn run_batch(&mut self, name: &str) {
        self.node(name).send_line("RUN").await;
        let (started, _) = self.node(name).expect("BATCH", PATIENCE).await;
        self.batch = Some(started.detail.parse().expect("a batch id"));
    }

    fn events(&self) -> Vec<Event> {
        self.nodes.iter().flat_map(|node| node.history()).collect()
    }

    fn batch(&self) -> i64 {
        self.batch.expect("a batch started")
    }

    /// The cluster store's clock now.
    pub(crate) async fn now(&self) -> StoreTime {
        self.store.now().await.expect("reading the store's clock")
    }

    async fn partitions(&self) -> Vec<Partition> {
        let params = PartitionListParams { limit: 1000, ..PartitionListParams::new(self.batch()) };
        self.store.partition_list(params).await.expect("listing partitions").items
    }

    /// Rereads the batch's partitions until `found` finds what it looks for; panics after
    /// [`PATIENCE`].
    pub(crate) async fn wait_partitions<T>(
        &self,
        what: &str,
        found: impl Fn(&[Partition]) -> Option<T>,
    ) -> T {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let partitions = self.partitions().await;
            if let Some(answer) = found(&partitions) {
                return answer;
            }
            assert!(
                Instant::now() < deadline,
                "no {what} within {PATIENCE:?}; partitions: {partitions:#?}"
            );
            sleep(POLL).await;
        }
    }

    /// Waits until node `name` has printed an event `wanted` matches, and answers the first;
    /// panics after [`PATIENCE`].
    pub(crate) async fn wait_printed(
        &mut self,
        name: &str,
        what: &str,
        wanted: impl Fn(&Event) -> bool,
    ) -> Event {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let history = self.node(name).history();
            if let Some(event) = history.iter().find(|e| wanted(e)) {
                return event.clone();
            }
            assert!(
                Instant::now() < deadline,
                "{name} printed no {what} within {PATIENCE:?}; it printed {history:#?}"
            );
            sleep(POLL).await;
        }
    }

    /// The state changes of node `name` on record, oldest first.
    pub(crate) async fn node_changes(&self, name: &str) -> Vec<NodeChange> {
        let node = Some(NodeId::new(name).expect("a node id"));
        let params = NodeChangesParams { node, limit: 1000, ..Default::default() };
        self.store.node_changes(params).await.expect("reading node changes").items
    }

    /// Waits until node `name` registered again after it was found unreachable, under a
    /// greater token.
    pub(crate) async fn wait_registered_again(&self, name: &str) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let changes = self.node_changes(name).await;
            let unreachable = changes.iter().find(|c| c.to == NodeState::Unreachable);
            let again = unreachable.and_then(|lost| {
                changes
                    .iter()
                    .find(|c| c.reason == NodeChangeReason::Reregistered && c.id > lost.id)
            });
            if let (Some(lost), Some(again)) = (unreachable, again) {
                assert_eq!(again.from, Some(NodeState::Unreachable), "{changes:#?}");
                assert!(again.token > lost.token, "{changes:#?}");
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{name} did not register again within {PATIENCE:?}: {changes:#?}"
            );
            sleep(POLL).await;
        }
    }

    /// The partitions `name` holds, each claimed with a checkpoint.
    pub(crate) async fn held_by(&self, name: &str) -> Vec<Held> {
        let held: Vec<Held> = self
            .partitions()
            .await
            .into_iter()
            .filter(|p| p.node.as_ref().is_some_and(|node| node.as_str() == name))
            .map(|p| {
                assert_eq!(p.state, PartitionState::Claimed, "{p:?}");
                let saved = p.checkpoint.as_ref().and_then(Checkpoint::parse);
                Held {
                    key: p.key.to_string(),
                    token: p.token.expect("a claimed partition has a token").get(),
                    attempts: p.attempts,
                    checkpoint: saved.unwrap_or_else(|| panic!("no checkpoint: {p:?}")),
                }
            })
            .collect();
        assert!(!held.is_empty(), "{name} holds no partition");
        held
    }

    /// Waits until every partition in `held` is claimed (or done) by another node under a
    /// greater token; answers each new claim's node and token.
    pub(crate) async fn wait_moved(&self, held: &[Held]) -> Vec<(String, u64)> {
        self.wait_partitions("claim elsewhere of every partition the struck node held", |ps| {
            held.iter()
                .map(|h| {
                    let p = ps.iter().find(|p| p.key.as_str() == h.key)?;
                    let token = p.token?.get();
                    let node = p.node.as_ref()?.as_str();
                    (token > h.token && node != STRUCK).then(|| (node.to_string(), token))
                })
                .collect()
        })
        .await
    }

    /// Waits until the batch succeeded, stops every live node gracefully, and checks what
    /// every scenario must leave behind:
    ///
    /// - every partition is completed, and exactly one claim of each (the one the store
    ///   completed it under) reported its handler's success;
    /// - every item of every partition is on the ledger exactly once, and no accepted entry
    ///   is stale.
    pub(crate) async fn finish_batch(&mut self) -> Finished {
        let batch = self.batch();
        let deadline = Instant::now() + PATIENCE;
        loop {
            let record = self.store.batch_get(batch).await.expect("reading the batch");
            let record = record.expect("the batch exists");
            assert_ne!(record.state, BatchState::Failed, "{record:?}");
            if record.state == BatchState::Succeeded {
                break;
            }
            assert!(Instant::now() < deadline, "the batch did not finish: {record:?}");
            sleep(POLL).await;
        }
        for node in self.nodes.iter_mut().filter(|n| !self.gone.contains(&n.name)) {
            node.quit(PATIENCE).await;
        }
        let partitions = self.partitions().await;
        assert_eq!(partitions.len() as u64, PARTITIONS);
        let report = self.ledger.check().await.expect("checking the item ledger");
        assert_eq!(report.stale_accepted, 0, "stale commits accepted: {report:#?}");
        let events = self.events();
        for p in &partitions {
            assert_eq!(p.state, PartitionState::Completed, "{p:?}");
            let items = cluster_node::items(&p.params).expect("a partition's items");
            let wrong = report.not_once(p.key.as_str(), items);
            assert!(wrong.is_empty(), "items of {} not once (item, count): {wrong:?}", p.key);
            let done: Vec<u64> = events
                .iter()
                .filter(|e| e.kind == "DONE" && cluster_node::key(e) == p.key.as_str())
                .filter_map(Event::token)
                .collect();
            assert_eq!(done, [p.token.expect("a completed partition's token").get()], "{p:?}");
        }
        assert_eq!(report.accepted() as u64, PARTITIONS * ITEMS_PER_PARTITION);
        Finished { partitions, report, events }
    }

    /// [`Cluster::finish_batch`], then the outcome of a fault that struck node [`STRUCK`] at
    /// `fault` (store clock) while it held `held`:
    ///
    /// - each partition held resumed on a greater token (a new attempt) from the checkpoint
    ///   the struck node saved last, at or after the one the store showed at the fault,
    ///   redoing at most the [`CHECKPOINT_EVERY`] items committed after it;
    /// - the struck node was found unreachable for want of heartbeats, and not removed.
    pub(crate) async fn finish(mut self, held: &[Held], fault: StoreTime) -> Measured {
        let Finished { partitions, report, events } = self.finish_batch().await;
        let mut measured = Measured {
            moved: held.len(),
            items: report.accepted(),
            rejected: report.rejected,
            ..Default::default()
        };
        let started: Vec<Started> = events.iter().filter_map(Started::of).collect();
        for h in held {
            let p = partitions.iter().find(|p| p.key.as_str() == h.key).expect("held partition");
            let resumed = started
                .iter()
                .filter(|s| s.key == h.key && s.token > h.token)
                .min_by_key(|s| s.token)
                .unwrap_or_else(|| panic!("{h:?} never resumed: {p:?}"));
            assert_eq!(resumed.attempt, h.attempts + 1, "{h:?} then {resumed:?}");
            assert_eq!(resumed.from.by, h.token, "{resumed:?} did not resume from {h:?}");
            assert!(resumed.from.next >= h.checkpoint.next, "{h:?} then {resumed:?}");
            measured.redone += redone(&report, h, resumed);
            let claimed = p.claimed_at.expect("a completed partition was claimed");
            measured.resumed = measured.resumed.max(claimed.saturating_since(fault));
        }
        let changes = self.node_changes(STRUCK).await;
        let found = changes
            .iter()
            .any(|c| c.to == NodeState::Unreachable && c.reason == NodeChangeReason::NoHeartbeat);
        assert!(found, "{STRUCK} was never found unreachable: {changes:#?}");
        assert!(changes.iter().all(|c| c.to != NodeState::Removed), "{changes:#?}");
        measured
    }
}

/// The items of `held`'s partition that its claim committed after its last checkpoint and the
/// claim `resumed` committed again; at most [`CHECKPOINT_EVERY`].
fn redone(report: &ItemReport, held: &Held, resumed: &Started) -> usize {
    let entries = report.entries.get(&held.key).into_iter().flatten();
    let redone = entries.filter(|e| e.token == held.token && e.item >= resumed.from.next).count();
    assert!(redone as u64 <= CHECKPOINT_EVERY, "{redone} items redone after {held:?}");
    redone
}

/// Starts the leader, then worker [`STRUCK`] on `struck_url` and the other worker, starts a
/// batch, and waits until each partition of [`STRUCK`] committed two items past its first
/// checkpoint, which a claim resuming from that checkpoint redoes.
pub(crate) async fn batch_under_way(setup: &NodeSetup, struck_url: &str) -> Cluster {
    let mut cluster = Cluster::new(setup).await;
    cluster.start(LEADER, &setup.url).await;
    cluster.node(LEADER).expect("LEADING", PATIENCE).await;
    cluster.start(STRUCK, struck_url).await;
    cluster.start(OTHER, &setup.url).await;
    cluster.run_batch(LEADER).await;
    let struck: Vec<(String, u64)> = cluster
        .wait_partitions("claim of every partition", |partitions| {
            let claimed = partitions.iter().all(|p| p.state != PartitionState::Pending);
            let struck =
                partitions.iter().filter(|p| p.node.as_ref().is_some_and(|n| n.as_str() == STRUCK));
            let first = |p: &Partition| cluster_node::items(&p.params).expect("items").start;
            claimed.then(|| struck.map(|p| (p.key.to_string(), first(p))).collect())
        })
        .await;
    assert!(!struck.is_empty(), "no partition was assigned to {STRUCK}");
    for (key, first) in struck {
        let second_past = first + CHECKPOINT_EVERY + 1;
        let committed = |e: &Event| {
            e.kind == "WROTE"
                && cluster_node::key(e) == key
                && cluster_node::item(e) == Some(second_past)
        };
        cluster.wait_printed(STRUCK, "commit past a checkpoint", committed).await;
    }
    cluster
}
