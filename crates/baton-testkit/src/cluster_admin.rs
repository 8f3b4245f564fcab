//! Admin calls during a partitioned batch (W4 on W3), with three cluster nodes as separate
//! processes: a change of cluster leader mid-batch must move no partition and lose no item.

use std::time::Duration;

use baton::LeaseName;
use baton::core::cluster::NodeState;

use crate::cluster_faults::{Cluster, LEADER, WORKERS};
use crate::faults::PATIENCE;
use crate::node_args::NodeSetup;
use crate::terms::{self, holder_of, token_of};

/// The lease whose holder is the cluster leader (the cluster's default).
pub const CLUSTER_LEASE: &str = "baton-cluster";

/// How long after each call another term began, on the lease store's clock.
#[derive(Debug, Clone, Copy)]
pub struct Handovers {
    /// After the forced release.
    pub forced_release: Duration,
    /// After the step-down.
    pub step_down: Duration,
}

/// While three nodes run a batch, the cluster leader's lease is force-released, then the
/// leader of the term that follows is asked to step down.
///
/// - each call ends the term at once: another term begins under a greater token, well before
///   the lease could have expired;
/// - no leader takes a live node for dead: no node is ever found unreachable, and every
///   partition completes under its first claim;
/// - the batch succeeds with every item committed once and no stale commit
///   (the checks every cluster scenario ends with).
pub async fn leader_changes_move_no_partition(setup: &NodeSetup) -> Handovers {
    let mut cluster = Cluster::new(setup).await;
    cluster.start(LEADER, &setup.url).await;
    cluster.node(LEADER).expect("LEADING", PATIENCE).await;
    for worker in WORKERS {
        cluster.start(worker, &setup.url).await;
    }
    cluster.run_batch(LEADER).await;

    let lease: LeaseName = CLUSTER_LEASE.parse().expect("a lease name");
    let leases = cluster.leases().clone();
    let first = terms::wait_term(&*leases, &lease, 0, PATIENCE).await;
    let (second, forced_release) =
        terms::force_release(&*leases, &lease, token_of(&first), setup.ttl, PATIENCE).await;

    let asked_at = terms::step_down(cluster.node(&holder_of(&second)), &*leases).await;
    let third = terms::wait_term(&*leases, &lease, token_of(&second), PATIENCE).await;
    let step_down = third.acquired_at.saturating_since(asked_at);
    assert!(step_down < setup.ttl, "handed over {step_down:?} after the step-down");

    let finished = cluster.finish_batch().await;
    for p in &finished.partitions {
        assert_eq!(p.attempts, 1, "a partition moved, though no node was lost: {p:?}");
    }
    for node in [LEADER].into_iter().chain(WORKERS) {
        let changes = cluster.node_changes(node).await;
        let lost = changes.iter().find(|c| c.to == NodeState::Unreachable);
        assert!(lost.is_none(), "{node} was taken for dead: {changes:#?}");
    }
    Handovers { forced_release, step_down }
}
