//! Moves of pending partitions between nodes while their batch runs: the leader's rebalancing
//! (a node joined, an idle node stole work) and failover, each recorded with the batch.

use super::named::named_enum;
use super::{NodeId, PartitionKey};
use crate::error::{Error, Result};
use crate::lease::FencingToken;
use crate::page::Cursor;
use crate::time::StoreTime;

named_enum!(
    /// Why a partition moved to another node.
    MoveReason, "move reason",
    /// A node that joined after the batch started took its share (`scale-up` batches).
    Join => "join",
    /// A node with no pending partition of the batch took some from the node with the most.
    Steal => "steal",
    /// Its node departed (unreachable, removed, left or registered again).
    Failover => "failover",
);

/// One move of one partition, kept with its batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionMove {
    /// Position in the store's history of moves; increases with every record.
    pub id: i64,
    /// The batch.
    pub batch: i64,
    /// The partition moved.
    pub partition: i64,
    /// Its key.
    pub key: PartitionKey,
    /// The node it was assigned to or claimed by.
    pub from: NodeId,
    /// The node it is now assigned to; `None`: any node may claim it.
    pub to: Option<NodeId>,
    /// Why it moved.
    pub reason: MoveReason,
    /// The token the move issued (rebalancing moves), `None` for a failover, whose next
    /// claim issues one.
    pub token: Option<FencingToken>,
    /// When, on the store's clock.
    pub at: StoreTime,
}

/// Move pending partitions of a running batch from one node to another, as the leader
/// planned it (see [`plan_moves`](super::plan_moves)); one transaction.
///
/// The store moves the `from` node's pending partitions of the batch with the greatest ids
/// (those it would claim last), at most `count` of them and never so many that fewer than
/// `keep` stay pending on `from`, and only while `to` is active. Each moved partition is
/// assigned to `to` under a new token and recorded; claims made since the plan, or a second
/// leader applying the same plan, leave fewer to move, never a partition on two nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionMoveParams {
    /// The batch.
    pub batch: i64,
    /// The node giving partitions.
    pub from: NodeId,
    /// The node taking them; must be active.
    pub to: NodeId,
    /// The most partitions to move (1 to 1000).
    pub count: u32,
    /// How many pending partitions `from` keeps at least.
    pub keep: u32,
    /// Why: [`MoveReason::Join`] or [`MoveReason::Steal`].
    pub reason: MoveReason,
}

impl PartitionMoveParams {
    /// Checks the count and the reason; the error names the value.
    pub fn check(&self) -> Result<()> {
        if self.count == 0 || self.count > 1000 {
            return Err(Error::invalid_input(format!(
                "invalid move count {}: expected 1 to 1000",
                self.count
            )));
        }
        if self.reason == MoveReason::Failover {
            return Err(Error::invalid_input(
                "invalid move reason failover: expected join or steal (failover moves are \
                 the reassignment's)",
            ));
        }
        if self.from == self.to {
            return Err(Error::invalid_input(format!(
                "invalid move from node {} to itself: expected two different nodes",
                self.from
            )));
        }
        Ok(())
    }
}

/// A page request over one batch's moves, oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionMovesParams {
    /// The batch.
    pub batch: i64,
    /// Start after this cursor; `None` for the first page.
    pub after: Option<Cursor>,
    /// Items per page (1 to 1000).
    pub limit: u32,
}

impl PartitionMovesParams {
    /// The first page of 100 of a batch's moves.
    pub fn new(batch: i64) -> Self {
        PartitionMovesParams { batch, after: None, limit: 100 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> PartitionMoveParams {
        PartitionMoveParams {
            batch: 1,
            from: NodeId::new("a").unwrap(),
            to: NodeId::new("b").unwrap(),
            count: 1,
            keep: 0,
            reason: MoveReason::Steal,
        }
    }

    #[test]
    fn counts_reasons_and_nodes_are_checked() {
        assert!(params().check().is_ok());
        let err = PartitionMoveParams { count: 0, ..params() }.check().unwrap_err();
        assert_eq!(err.to_string(), "invalid move count 0: expected 1 to 1000");
        let err = PartitionMoveParams { reason: MoveReason::Failover, ..params() };
        assert!(err.check().unwrap_err().to_string().starts_with("invalid move reason failover"));
        let err = PartitionMoveParams { to: NodeId::new("a").unwrap(), ..params() };
        assert_eq!(
            err.check().unwrap_err().to_string(),
            "invalid move from node a to itself: expected two different nodes"
        );
    }

    #[test]
    fn reasons_round_trip() {
        for reason in MoveReason::ALL {
            assert_eq!(reason.as_str().parse::<MoveReason>().unwrap(), *reason);
        }
    }
}
