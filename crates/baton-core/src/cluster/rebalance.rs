//! Rebalancing a running batch as a pure function: which pending partitions the leader moves
//! between live nodes, for `scale-up` batches and batches with work stealing.
//!
//! Only pending partitions move: a claimed one has started, and moves only when its node
//! departs (see [`rehome`](super::rehome)).

use super::{BatchJob, MoveReason, NodeId, PartitionMoveParams, Strategy};

/// The most partitions one planned move carries; larger transfers are split.
const MAX_MOVE: u32 = 1000;

/// A live node's pending partitions of one batch, as the leader read them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingShare {
    /// The node (active).
    pub node: NodeId,
    /// Its pending partitions of the batch.
    pub pending: u32,
    /// Whether its incarnation registered after the batch was created: moves to it are
    /// recorded as [`MoveReason::Join`], others as [`MoveReason::Steal`].
    pub joined: bool,
}

/// The moves that rebalance `batch` over the live nodes `shares` (each node once), in the
/// order to apply them. Nothing moves until some live node has no pending partition of the
/// batch (it joined, or claimed all of its own), and then:
///
/// - `scale-up`: the pending partitions are spread evenly over every live node (shares differ
///   by at most one, the larger shares staying with the nodes that had most), each surplus
///   node giving to the nodes short of their share, in id order.
/// - work stealing (any other assigning strategy, when the batch has it): each node without
///   pending partitions, in id order, takes half (rounded down) of the pending partitions of
///   the node with the most (ties to the smaller id), when that node has at least two.
/// - otherwise, and always for `free-for-all` (nothing is assigned), nothing moves.
///
/// Each move's `keep` is what its source should hold after it, so that claims made since the
/// read, or a second leader applying the same plan, move fewer partitions, never more.
pub fn plan_moves(batch: &BatchJob, shares: &[PendingShare]) -> Vec<PartitionMoveParams> {
    if !shares.iter().any(|share| share.pending == 0) {
        return Vec::new();
    }
    let mut shares = shares.to_vec();
    shares.sort_by(|a, b| a.node.cmp(&b.node));
    let transfers = match batch.strategy {
        Strategy::FreeForAll => Vec::new(),
        Strategy::ScaleUp => spread(&shares),
        _ if batch.stealing => steal(&mut shares),
        _ => Vec::new(),
    };
    let mut moves = Vec::new();
    for transfer in transfers {
        let mut left = transfer.count;
        let mut keep = transfer.keep + transfer.count;
        while left > 0 {
            let count = left.min(MAX_MOVE);
            left -= count;
            keep -= count;
            let to = &transfer.to;
            moves.push(PartitionMoveParams {
                batch: batch.id,
                from: transfer.from.node.clone(),
                to: to.node.clone(),
                count,
                keep,
                reason: if to.joined { MoveReason::Join } else { MoveReason::Steal },
            });
        }
    }
    moves
}

/// Partitions going from one node to another; `keep` is what the source holds after.
struct Transfer {
    from: PendingShare,
    to: PendingShare,
    count: u32,
    keep: u32,
}

/// Even shares over every node, the surplus of each node (in id order) given to the nodes
/// short of their share (in id order).
fn spread(shares: &[PendingShare]) -> Vec<Transfer> {
    let nodes = shares.len() as u64;
    let total: u64 = shares.iter().map(|share| u64::from(share.pending)).sum();
    // The nodes holding most keep the larger shares, so that fewer partitions move.
    let mut by_holding: Vec<usize> = (0..shares.len()).collect();
    by_holding.sort_by(|&a, &b| shares[b].pending.cmp(&shares[a].pending).then(a.cmp(&b)));
    let mut target = vec![0u32; shares.len()];
    for (rank, &index) in by_holding.iter().enumerate() {
        let extra = u64::from((rank as u64) < total % nodes);
        target[index] = u32::try_from(total / nodes + extra).unwrap_or(u32::MAX);
    }
    let mut held: Vec<u32> = shares.iter().map(|share| share.pending).collect();
    let mut transfers = Vec::new();
    for to in 0..shares.len() {
        for from in 0..shares.len() {
            let need = target[to].saturating_sub(held[to]);
            let surplus = held[from].saturating_sub(target[from]);
            let count = need.min(surplus);
            if count == 0 {
                continue;
            }
            held[from] -= count;
            held[to] += count;
            transfers.push(Transfer {
                from: shares[from].clone(),
                to: shares[to].clone(),
                count,
                keep: held[from],
            });
        }
    }
    transfers
}

/// Each node without pending partitions, in id order, takes half of the largest holding.
fn steal(shares: &mut [PendingShare]) -> Vec<Transfer> {
    let mut transfers = Vec::new();
    for thief in 0..shares.len() {
        if shares[thief].pending != 0 {
            continue;
        }
        // The first of the largest holdings in id order: ties go to the smaller id.
        let victim = (0..shares.len())
            .rev()
            .max_by_key(|&i| shares[i].pending)
            .expect("at least the thief is listed");
        let count = shares[victim].pending / 2;
        if count == 0 {
            continue;
        }
        shares[victim].pending -= count;
        shares[thief].pending = count;
        transfers.push(Transfer {
            from: shares[victim].clone(),
            to: shares[thief].clone(),
            count,
            keep: shares[victim].pending,
        });
    }
    transfers
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::BatchState;
    use crate::schedule::JobName;
    use crate::time::StoreTime;

    fn batch(strategy: Strategy, stealing: bool) -> BatchJob {
        BatchJob {
            id: 7,
            name: JobName::new("etl").unwrap(),
            strategy,
            stealing,
            state: BatchState::Running,
            created_at: StoreTime::from_millis(0),
            finished_at: None,
            failure: None,
        }
    }

    fn share(node: &str, pending: u32, joined: bool) -> PendingShare {
        PendingShare { node: NodeId::new(node).unwrap(), pending, joined }
    }

    /// Each move as "from>to count keep reason".
    fn moves(batch: &BatchJob, shares: &[PendingShare]) -> Vec<String> {
        plan_moves(batch, shares)
            .iter()
            .map(|m| {
                assert_eq!(m.batch, 7);
                format!("{}>{} {} {} {}", m.from, m.to, m.count, m.keep, m.reason)
            })
            .collect()
    }

    #[test]
    fn scale_up_spreads_pending_partitions_evenly_over_joined_nodes() {
        let shares = [share("n1", 54, false), share("n2", 0, true), share("n3", 0, true)];
        let scale_up = batch(Strategy::ScaleUp, false);
        assert_eq!(moves(&scale_up, &shares), ["n1>n2 18 36 join", "n1>n3 18 18 join"]);
        let uneven = [share("n1", 10, false), share("n2", 3, false), share("n3", 0, true)];
        // 13 over three: 5 for n1, which held most, 4 each for the others, so n2 (there from
        // the start) takes one and n3 (joined) four.
        assert_eq!(moves(&scale_up, &uneven), ["n1>n2 1 9 steal", "n1>n3 4 5 join"]);
    }

    #[test]
    fn scale_up_moves_nothing_while_every_node_has_pending_partitions() {
        let shares = [share("n1", 30, false), share("n2", 1, true)];
        assert!(moves(&batch(Strategy::ScaleUp, false), &shares).is_empty());
        let balanced = [share("n1", 1, false), share("n2", 0, false)];
        assert!(moves(&batch(Strategy::ScaleUp, false), &balanced).is_empty());
    }

    #[test]
    fn an_idle_node_steals_half_of_the_largest_holding() {
        let shares = [share("a", 3, false), share("b", 9, false), share("c", 0, false)];
        let stealing = batch(Strategy::RoundRobin, true);
        assert_eq!(moves(&stealing, &shares), ["b>c 4 5 steal"]);
        let two_idle = [share("a", 9, false), share("b", 0, true), share("c", 0, false)];
        assert_eq!(moves(&stealing, &two_idle), ["a>b 4 5 join", "a>c 2 3 steal"]);
        let ties = [share("b", 4, false), share("a", 4, false), share("c", 0, false)];
        assert_eq!(moves(&stealing, &ties), ["a>c 2 2 steal"]);
    }

    #[test]
    fn a_single_pending_partition_is_never_stolen() {
        let shares = [share("a", 1, false), share("b", 0, false)];
        assert!(moves(&batch(Strategy::LeastLoaded, true), &shares).is_empty());
    }

    #[test]
    fn without_stealing_or_with_free_for_all_nothing_moves() {
        let shares = [share("a", 9, false), share("b", 0, true)];
        assert!(moves(&batch(Strategy::RoundRobin, false), &shares).is_empty());
        assert!(moves(&batch(Strategy::FreeForAll, true), &shares).is_empty());
    }

    #[test]
    fn large_transfers_are_split_into_moves_of_at_most_a_thousand() {
        let shares = [share("a", 5000, false), share("b", 0, true)];
        assert_eq!(
            moves(&batch(Strategy::ScaleUp, false), &shares),
            ["a>b 1000 4000 join", "a>b 1000 3000 join", "a>b 500 2500 join",]
        );
    }
}
