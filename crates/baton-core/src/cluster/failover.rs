//! What happens to the partitions of a node that is gone: the pure rule shared by the
//! leader's reassignment, a graceful leave and a re-registration (invariant I7).

use std::fmt;

use super::assign::Balancer;
use super::{NodeId, NodeLoad, NodeState, PartitionKey, Strategy};

/// Why a node can no longer run its partitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Departure {
    /// It stopped heartbeating past the unreachable threshold.
    Unreachable,
    /// It stopped heartbeating past the removal threshold.
    Removed,
    /// It left gracefully.
    Left,
    /// It registered again: a new incarnation replaced the one that held the partitions.
    Reregistered,
    /// No node of that id is registered.
    Unregistered,
}

impl Departure {
    /// The departure of a node in `state` (`None`: not registered); `None` for an active node,
    /// which has not departed.
    pub fn from_state(state: Option<NodeState>) -> Option<Departure> {
        match state {
            None => Some(Departure::Unregistered),
            Some(NodeState::Unreachable) => Some(Departure::Unreachable),
            Some(NodeState::Removed) => Some(Departure::Removed),
            Some(NodeState::Left) => Some(Departure::Left),
            Some(_) => None,
        }
    }
}

impl fmt::Display for Departure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Departure::Unreachable => "is unreachable",
            Departure::Removed => "was removed",
            Departure::Left => "left",
            Departure::Reregistered => "registered again as a new incarnation",
            Departure::Unregistered => "is not registered",
        })
    }
}

/// A pending or claimed partition of a running batch whose node is gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Orphan {
    /// The partition's key.
    pub key: PartitionKey,
    /// The node it was assigned to or claimed by.
    pub node: NodeId,
    /// Why that node can no longer run it.
    pub departure: Departure,
    /// Whether the node had claimed it (work may have started) rather than only been assigned.
    pub claimed: bool,
    /// Whether it may resume on another node.
    pub transferable: bool,
    /// The strategy of its batch.
    pub strategy: Strategy,
}

/// What becomes of an orphaned partition.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fate {
    /// Back to pending, assigned to this node (`None`: any node may claim it), keeping its
    /// checkpoint.
    Requeue(Option<NodeId>),
    /// Failed, for this reason.
    Fail(String),
}

/// Decides the fate of each orphan, in order, given the live nodes and their load.
///
/// A claimed partition that is not transferable fails, naming its node and why. Every other
/// orphan (a transferable one, or one only assigned, whose work never started) goes back to
/// pending: unassigned in a `free-for-all` batch or when no node is alive, otherwise to the
/// live node whose load plus the orphans given to it so far is least (ties to the smaller id).
pub fn rehome(orphans: &[Orphan], live: &[NodeLoad]) -> Vec<Fate> {
    let mut balancer = Balancer::new(live);
    orphans
        .iter()
        .map(|orphan| {
            if orphan.claimed && !orphan.transferable {
                Fate::Fail(format!(
                    "node {} {}; partition {} is not transferable",
                    orphan.node, orphan.departure, orphan.key
                ))
            } else if orphan.strategy == Strategy::FreeForAll {
                Fate::Requeue(None)
            } else {
                Fate::Requeue(balancer.next())
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn orphan(key: &str, claimed: bool, transferable: bool, strategy: Strategy) -> Orphan {
        Orphan {
            key: PartitionKey::new(key).unwrap(),
            node: NodeId::new("dead").unwrap(),
            departure: Departure::Unreachable,
            claimed,
            transferable,
            strategy,
        }
    }

    fn live(id: &str, load: u32) -> NodeLoad {
        NodeLoad::new(NodeId::new(id).unwrap(), load)
    }

    fn to(id: &str) -> Fate {
        Fate::Requeue(Some(NodeId::new(id).unwrap()))
    }

    #[test]
    fn transferable_orphans_spread_over_the_least_loaded_live_nodes() {
        let orphans: Vec<Orphan> =
            (0..4).map(|i| orphan(&format!("p{i}"), true, true, Strategy::RoundRobin)).collect();
        let fates = rehome(&orphans, &[live("b", 0), live("a", 1), live("c", 5)]);
        assert_eq!(fates, [to("b"), to("a"), to("b"), to("a")]);
    }

    #[test]
    fn a_claimed_partition_that_cannot_move_fails_naming_its_node_and_why() {
        let mut lost = orphan("p1", true, false, Strategy::LeastLoaded);
        lost.departure = Departure::Reregistered;
        let fates = rehome(&[lost], &[live("a", 0)]);
        assert_eq!(
            fates,
            [Fate::Fail(
                "node dead registered again as a new incarnation; partition p1 is not \
                 transferable"
                    .into()
            )]
        );
    }

    #[test]
    fn an_assigned_partition_never_claimed_moves_even_if_not_transferable() {
        let fates = rehome(&[orphan("p1", false, false, Strategy::RoundRobin)], &[live("a", 0)]);
        assert_eq!(fates, [to("a")]);
    }

    #[test]
    fn free_for_all_orphans_and_orphans_without_live_nodes_become_unassigned() {
        let free = orphan("p1", true, true, Strategy::FreeForAll);
        assert_eq!(rehome(&[free], &[live("a", 0)]), [Fate::Requeue(None)]);
        let fixed = orphan("p2", true, true, Strategy::RoundRobin);
        assert_eq!(rehome(&[fixed], &[]), [Fate::Requeue(None)]);
    }

    #[test]
    fn departures_follow_the_node_state() {
        assert_eq!(Departure::from_state(None), Some(Departure::Unregistered));
        assert_eq!(Departure::from_state(Some(NodeState::Left)), Some(Departure::Left));
        assert_eq!(Departure::from_state(Some(NodeState::Removed)), Some(Departure::Removed));
        assert_eq!(Departure::from_state(Some(NodeState::Active)), None);
        assert_eq!(Departure::Unreachable.to_string(), "is unreachable");
    }
}
