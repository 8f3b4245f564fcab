//! Node records: who is in the cluster, since when, how busy, and whether it is alive.

use super::NodeId;
use super::named::named_enum;
use crate::lease::FencingToken;
use crate::time::StoreTime;

named_enum!(
    /// Where a node is in its life. Only an `Active` node may heartbeat, claim partitions or be
    /// assigned new ones; every other state ends the incarnation, and a node that comes back
    /// registers again.
    ///
    /// ```text
    /// (register) ──▶ active ──no heartbeat──▶ unreachable ──no heartbeat──▶ removed
    ///                  └──leave──▶ left
    /// ```
    NodeState, "node state",
    /// Registered and heartbeating.
    Active => "active",
    /// No heartbeat for longer than the unreachable threshold.
    Unreachable => "unreachable",
    /// No heartbeat for longer than the removal threshold.
    Removed => "removed",
    /// Left the cluster gracefully.
    Left => "left",
);

impl NodeState {
    /// Whether a node in this state is alive: only `Active` is.
    pub fn is_live(self) -> bool {
        self == NodeState::Active
    }
}

/// A node as the store keeps it: one record per id, rewritten by each registration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// The store's number for the node, assigned at its first registration and kept by later
    /// ones; node listings page by it.
    pub seq: i64,
    /// The node's id.
    pub id: NodeId,
    /// The host it runs on.
    pub host: String,
    /// The version of the software it runs.
    pub version: String,
    /// The token of its current incarnation, issued at registration from the same counter as
    /// every other token of the store; a later registration of the same id issues a greater
    /// one, which fences the earlier incarnation.
    pub token: FencingToken,
    /// When the current incarnation registered (store clock).
    pub started_at: StoreTime,
    /// Its last heartbeat (store clock); registration counts as one.
    pub heartbeat_at: StoreTime,
    /// The load it last reported (for example running partitions and executions); the
    /// least-loaded strategy prefers low values.
    pub load: u32,
    /// Where it is in its life.
    pub state: NodeState,
    /// When it entered that state (store clock).
    pub state_changed_at: StoreTime,
}

/// A live node as the assignment strategies see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeLoad {
    /// The node.
    pub id: NodeId,
    /// Its reported load.
    pub load: u32,
}

impl NodeLoad {
    /// A node with a load.
    pub fn new(id: NodeId, load: u32) -> Self {
        NodeLoad { id, load }
    }
}

impl From<&Node> for NodeLoad {
    fn from(node: &Node) -> Self {
        NodeLoad { id: node.id.clone(), load: node.load }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_names_round_trip_and_accept_upper_case() {
        for state in NodeState::ALL {
            assert_eq!(state.as_str().parse::<NodeState>().unwrap(), *state);
        }
        assert_eq!("UNREACHABLE".parse::<NodeState>().unwrap(), NodeState::Unreachable);
        let err = "dead".parse::<NodeState>().unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"invalid node state "dead": expected one of active, unreachable, removed, left"#
        );
    }

    #[test]
    fn only_active_nodes_are_live() {
        let live: Vec<NodeState> = NodeState::ALL.iter().copied().filter(|s| s.is_live()).collect();
        assert_eq!(live, [NodeState::Active]);
    }
}
