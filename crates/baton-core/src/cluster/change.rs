//! Node state changes (invariant I8): one record per change, readable with keyset pages.

use super::named::named_enum;
use super::{NodeId, NodeState};
use crate::lease::FencingToken;
use crate::time::StoreTime;

named_enum!(
    /// Why a node's state changed.
    NodeChangeReason, "node change reason",
    /// The node registered for the first time.
    Registered => "registered",
    /// A node already known registered again: a new incarnation replaced the previous one.
    Reregistered => "reregistered",
    /// The node's last heartbeat grew older than a threshold.
    NoHeartbeat => "no-heartbeat",
    /// The node left gracefully.
    Left => "left",
);

/// One change of a node's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeChange {
    /// Position in the history; increases with every record.
    pub id: i64,
    /// The node.
    pub node: NodeId,
    /// The incarnation concerned: the new token for a registration, the current one otherwise.
    pub token: FencingToken,
    /// The state before, or `None` for a first registration.
    pub from: Option<NodeState>,
    /// The state after.
    pub to: NodeState,
    /// When, on the store's clock.
    pub at: StoreTime,
    /// Why.
    pub reason: NodeChangeReason,
}
