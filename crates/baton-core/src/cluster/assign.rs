//! Assignment strategies as pure functions: which live node each partition of a new batch
//! goes to.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::{NodeId, NodeLoad, Strategy};
use crate::error::{Error, Result};

/// Assigns `partitions` partitions, in order, to `live` nodes by `strategy`; `None` means any
/// node may claim the partition.
///
/// Deterministic: nodes are considered in id order (a node listed twice counts once) and ties
/// of load go to the smaller id.
///
/// - `round-robin` and `scale-up`: partition `i` goes to node `i mod n`.
/// - `fixed-node-count(k)`: the `k` least-loaded nodes are chosen, then round-robin over them
///   in id order; with fewer than `k` live nodes, every live node is used.
/// - `least-loaded`: each partition goes to the node whose load plus partitions given so far
///   is least.
/// - `free-for-all`: no partition is assigned, whatever the nodes.
///
/// Every strategy but `free-for-all` needs at least one live node.
pub fn assign(
    strategy: Strategy,
    partitions: usize,
    live: &[NodeLoad],
) -> Result<Vec<Option<NodeId>>> {
    if strategy == Strategy::FreeForAll {
        return Ok(vec![None; partitions]);
    }
    let nodes = distinct_by_id(live);
    if nodes.is_empty() {
        return Err(Error::invalid_input(format!(
            "cannot assign partitions by {strategy}: expected at least one live node, found none"
        )));
    }
    let assigned = match strategy {
        Strategy::FixedNodeCount(k) => {
            let mut chosen = nodes.clone();
            chosen.sort_by(|a, b| (a.load, &a.id).cmp(&(b.load, &b.id)));
            chosen.truncate(usize::try_from(k.get()).unwrap_or(usize::MAX));
            chosen.sort_by(|a, b| a.id.cmp(&b.id));
            round_robin(&chosen, partitions)
        }
        Strategy::LeastLoaded => {
            let mut balancer = Balancer::new(&nodes);
            (0..partitions).map(|_| balancer.take()).collect()
        }
        _ => round_robin(&nodes, partitions),
    };
    Ok(assigned.into_iter().map(Some).collect())
}

/// The nodes sorted by id, each id once (the first listed wins).
fn distinct_by_id(live: &[NodeLoad]) -> Vec<NodeLoad> {
    let mut nodes = live.to_vec();
    nodes.sort_by(|a, b| a.id.cmp(&b.id));
    nodes.dedup_by(|later, earlier| later.id == earlier.id);
    nodes
}

fn round_robin(nodes: &[NodeLoad], partitions: usize) -> Vec<NodeId> {
    (0..partitions).map(|i| nodes[i % nodes.len()].id.clone()).collect()
}

/// Hands out nodes least loaded first, counting each node it hands out as one more unit of
/// load; ties go to the smaller id.
pub(super) struct Balancer {
    queue: BinaryHeap<Reverse<(u64, NodeId)>>,
}

impl Balancer {
    /// A balancer over `nodes`, which must not be empty for [`take`](Self::take) to answer.
    pub(super) fn new(nodes: &[NodeLoad]) -> Self {
        let queue = nodes.iter().map(|node| Reverse((u64::from(node.load), node.id.clone())));
        Balancer { queue: queue.collect() }
    }

    /// The least-loaded node, now one unit busier; `None` when there are no nodes.
    pub(super) fn next(&mut self) -> Option<NodeId> {
        let Reverse((load, id)) = self.queue.pop()?;
        self.queue.push(Reverse((load.saturating_add(1), id.clone())));
        Some(id)
    }

    fn take(&mut self) -> NodeId {
        self.next().expect("the balancer has nodes")
    }
}

#[cfg(test)]
mod tests {
    use std::num::NonZeroU32;

    use super::*;

    fn node(id: &str, load: u32) -> NodeLoad {
        NodeLoad::new(NodeId::new(id).unwrap(), load)
    }

    fn ids(assigned: &[Option<NodeId>]) -> Vec<&str> {
        assigned.iter().map(|n| n.as_ref().map_or("-", |id| id.as_str())).collect()
    }

    fn fixed(k: u32) -> Strategy {
        Strategy::FixedNodeCount(NonZeroU32::new(k).unwrap())
    }

    #[test]
    fn round_robin_goes_node_after_node_in_id_order() {
        let live = [node("c", 0), node("a", 9), node("b", 0)];
        let assigned = assign(Strategy::RoundRobin, 5, &live).unwrap();
        assert_eq!(ids(&assigned), ["a", "b", "c", "a", "b"]);
    }

    #[test]
    fn the_same_nodes_in_any_order_give_the_same_assignment() {
        let live = [node("n2", 3), node("n1", 1), node("n3", 1)];
        let mut reversed = live.clone();
        reversed.reverse();
        for strategy in [Strategy::RoundRobin, fixed(2), Strategy::LeastLoaded] {
            let forward = assign(strategy, 7, &live).unwrap();
            assert_eq!(forward, assign(strategy, 7, &reversed).unwrap(), "{strategy}");
        }
    }

    #[test]
    fn a_node_listed_twice_counts_once() {
        let live = [node("a", 0), node("b", 1), node("a", 5)];
        let assigned = assign(Strategy::RoundRobin, 3, &live).unwrap();
        assert_eq!(ids(&assigned), ["a", "b", "a"]);
        let assigned = assign(Strategy::LeastLoaded, 3, &live).unwrap();
        assert_eq!(ids(&assigned), ["a", "a", "b"], "the first listing's load counts");
    }

    #[test]
    fn fixed_node_count_uses_the_k_least_loaded_nodes() {
        let live = [node("a", 5), node("b", 1), node("c", 0), node("d", 1)];
        let assigned = assign(fixed(2), 4, &live).unwrap();
        assert_eq!(ids(&assigned), ["b", "c", "b", "c"], "ties of load go to the smaller id");
    }

    #[test]
    fn fixed_node_count_beyond_the_live_nodes_uses_every_live_node() {
        let live = [node("b", 0), node("a", 0)];
        let assigned = assign(fixed(5), 3, &live).unwrap();
        assert_eq!(ids(&assigned), ["a", "b", "a"]);
    }

    #[test]
    fn least_loaded_evens_out_the_load() {
        let live = [node("a", 3), node("b", 0), node("c", 1)];
        let assigned = assign(Strategy::LeastLoaded, 5, &live).unwrap();
        assert_eq!(ids(&assigned), ["b", "b", "c", "b", "c"]);
    }

    #[test]
    fn free_for_all_assigns_nothing_even_without_nodes() {
        assert_eq!(ids(&assign(Strategy::FreeForAll, 2, &[]).unwrap()), ["-", "-"]);
        let assigned = assign(Strategy::FreeForAll, 1, &[node("a", 0)]).unwrap();
        assert_eq!(ids(&assigned), ["-"]);
    }

    #[test]
    fn other_strategies_need_a_live_node() {
        for strategy in [Strategy::RoundRobin, fixed(1), Strategy::LeastLoaded] {
            let err = assign(strategy, 1, &[]).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::InvalidInput);
            assert_eq!(
                err.to_string(),
                format!(
                    "cannot assign partitions by {strategy}: expected at least one live node, \
                     found none"
                )
            );
        }
    }
}
