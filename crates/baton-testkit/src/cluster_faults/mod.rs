//! Fault scenarios for partitioned batches with three cluster nodes as separate processes
//! (`baton-cluster-node`), shared by every backend's cluster fault tests.
//!
//! Node `a` leads the cluster and starts a batch of the `items` job, two partitions per node.
//! Once each partition of worker `b` has committed items past a checkpoint, the scenario
//! strikes `b` (or, for churn, has `d` join and `b` leave). Each scenario waits on the nodes'
//! events or on the store's record (polled, with a timeout), never on a sleep, and ends with
//! the checks of `Cluster::finish_batch`: the batch succeeded, every partition completed once,
//! every item's effect is on the ledger exactly once and no stale commit got through. The
//! scenarios that strike `b` end with `Cluster::finish`, which also checks that `b`'s
//! partitions resumed elsewhere from its last checkpoint under a greater token.

mod cluster;

use std::time::Duration;

use baton::core::cluster::{NodeChangeReason, NodeState};
use tokio::time::Instant;

use crate::cluster_node::{self, Event, Started};
use crate::faults::PATIENCE;
use crate::node_args::NodeSetup;
use crate::proxy::{FaultProxy, Mode};

pub use cluster::{Cluster, Measured};
use cluster::{JOINER, batch_under_way};
pub(crate) use cluster::{LEADER, STRUCK, WORKERS};

/// `kill -9` of a worker holding partitions mid-way: once the leader finds it unreachable,
/// its partitions resume on the other nodes from its last checkpoints under greater tokens.
pub async fn killed_worker_partitions_resume_elsewhere(setup: &NodeSetup) -> Measured {
    let mut cluster = batch_under_way(setup, &setup.url).await;
    cluster.kill9(STRUCK).await;
    let fault = cluster.now().await;
    let held = cluster.held_by(STRUCK).await;
    cluster.wait_moved(&held).await;
    cluster.finish(&held, fault).await
}

/// `SIGSTOP` of a worker past the unreachable threshold, with an item commit in flight, then
/// `SIGCONT` once its partitions resumed elsewhere and each committed an item: the late
/// commit is rejected by the partition's fence, the worker commits nothing under its old
/// claims after resuming, and it registers again as a new incarnation.
pub async fn paused_worker_is_fenced_and_registers_again(setup: &NodeSetup) -> Measured {
    let mut cluster = batch_under_way(setup, &setup.url).await;
    let stopping = cluster.node(STRUCK).pause_on("STOP-IN-WRITE", PATIENCE).await;
    let fault = cluster.now().await;
    let held = cluster.held_by(STRUCK).await;
    let in_flight = stopping.detail.clone();
    let key = cluster_node::key(&stopping);
    assert!(held.iter().any(|h| h.key == key), "{stopping:?} vs {held:?}");
    let moved = cluster.wait_moved(&held).await;
    // A commit under the new claim raised the fence the late commit meets.
    for (h, (node, token)) in held.iter().zip(moved) {
        let key = h.key.clone();
        let committed = move |e: &Event| {
            matches!(e.kind.as_str(), "WROTE" | "REDONE")
                && cluster_node::key(e) == key
                && e.token() == Some(token)
        };
        cluster.wait_printed(&node, "commit under the new claim", committed).await;
    }
    cluster.node(STRUCK).resume();
    let late = |e: &Event| {
        matches!(e.kind.as_str(), "WROTE" | "REDONE" | "REJECTED") && e.detail == in_flight
    };
    let late = cluster.wait_printed(STRUCK, "outcome of the commit in flight", late).await;
    assert_eq!(late.kind, "REJECTED", "the fence let a stale commit through: {late:?}");
    cluster.wait_registered_again(STRUCK).await;
    let after_resume: Vec<Event> = {
        let history = cluster.node(STRUCK).history();
        let resumed = history.iter().position(|e| e.kind == "RESUMED").expect("resumed");
        history[resumed..].to_vec()
    };
    let measured = cluster.finish(&held, fault).await;
    assert_nothing_committed_under_old_claims(&after_resume);
    assert!(measured.rejected >= 1, "{measured:?}");
    measured
}

/// Checks that every commit, checkpoint or success a node reported in `events` belongs to a
/// claim that started among them.
fn assert_nothing_committed_under_old_claims(events: &[Event]) {
    let claims: Vec<u64> = events.iter().filter_map(Started::of).map(|s| s.token).collect();
    for event in events {
        let committed = matches!(event.kind.as_str(), "WROTE" | "REDONE" | "CHECKPOINT" | "DONE");
        let claim = event.token().is_some_and(|token| claims.contains(&token));
        assert!(!committed || claim, "committed under an old claim after resuming: {event:?}");
    }
}

/// A blackhole between a worker and the store (its leases, cluster store and ledger all pass
/// `proxy`, reached at `proxied_url`) until its partitions are claimed elsewhere, then the
/// heal: the partitions resume from its last checkpoints, and the worker registers again as a
/// new incarnation.
pub async fn cut_worker_partitions_resume_and_it_registers_again(
    setup: &NodeSetup,
    proxy: &FaultProxy,
    proxied_url: &str,
) -> Measured {
    let cluster = batch_under_way(setup, proxied_url).await;
    proxy.set_mode(Mode::Blackhole);
    let fault = cluster.now().await;
    // A checkpoint in flight may still land: the one read here is a lower bound.
    let held = cluster.held_by(STRUCK).await;
    cluster.wait_moved(&held).await;
    proxy.set_mode(Mode::Pass);
    cluster.wait_registered_again(STRUCK).await;
    cluster.finish(&held, fault).await
}

/// Churn while worker `b`'s partitions are under way: a new worker joins, then `b` leaves
/// gracefully. A claimed partition never moves because a node joined, and a node leaving
/// finishes its running partitions (within its grace period) before it leaves: no partition
/// moves or is redone, `b` is recorded as having left and never as unreachable, the newcomer
/// registered, and every item is committed once. Answers how long `b` took to leave.
pub async fn joining_and_leaving_workers_move_no_partition(setup: &NodeSetup) -> Duration {
    let mut cluster = batch_under_way(setup, &setup.url).await;
    cluster.start(JOINER, &setup.url).await;
    let asked = Instant::now();
    cluster.quit(STRUCK).await;
    let leaving = asked.elapsed();
    let finished = cluster.finish_batch().await;
    for p in &finished.partitions {
        assert_eq!(p.attempts, 1, "a partition moved, though no node failed: {p:?}");
    }
    let left = cluster.node_changes(STRUCK).await;
    let gone = left.iter().any(|c| c.to == NodeState::Left && c.reason == NodeChangeReason::Left);
    assert!(gone, "{STRUCK} was not recorded as having left: {left:#?}");
    let unreachable = left.iter().find(|c| c.to == NodeState::Unreachable);
    assert!(unreachable.is_none(), "{STRUCK} was taken for dead: {left:#?}");
    let joined = cluster.node_changes(JOINER).await;
    let registered = joined.iter().any(|c| c.reason == NodeChangeReason::Registered);
    assert!(registered, "{JOINER} never registered: {joined:#?}");
    leaving
}
