//! Parameters and outcomes of the node operations of [`ClusterStore`](super::ClusterStore).

use super::{Node, NodeChange, NodeId, NodeState, NodeThresholds};
use crate::error::Result;
use crate::lease::FencingToken;
use crate::page::Cursor;
use crate::time::StoreTime;

/// Register a node as a new incarnation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeRegisterParams {
    /// The node's id; registering an id again starts a new incarnation.
    pub id: NodeId,
    /// The host it runs on: 1 to 200 bytes of printable characters without spaces.
    pub host: String,
    /// The version of its software: 1 to 200 bytes of printable characters without spaces.
    pub version: String,
    /// Its current load.
    pub load: u32,
}

impl NodeRegisterParams {
    /// Checks the host and version; the error names the offending value.
    pub fn check(&self) -> Result<()> {
        crate::name::check("host", &self.host)?;
        crate::name::check("version", &self.version)
    }
}

/// One claimed partition's heartbeat, as part of its node's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionBeat {
    /// The partition.
    pub id: i64,
    /// The token of its claim.
    pub token: FencingToken,
    /// Units of work done so far; the stored progress only grows (a smaller value, from a
    /// heartbeat sent before a checkpoint, leaves it as it is).
    pub progress: u64,
}

/// All of one node's heartbeats at once: its own and its claimed partitions'.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeHeartbeatParams {
    /// The node.
    pub node: NodeId,
    /// The token of its incarnation.
    pub token: FencingToken,
    /// Its current load.
    pub load: u32,
    /// The partitions it runs, each with the token of its claim.
    pub partitions: Vec<PartitionBeat>,
}

/// The answer to a heartbeat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeHeartbeatOutcome {
    /// The node as stored after the heartbeat.
    pub node: Node,
    /// Partitions no longer claimed under the token given (moved, failed or finished): their
    /// work must stop, and its writes will be refused.
    pub lost: Vec<i64>,
}

/// Leave the cluster gracefully.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeLeaveParams {
    /// The node.
    pub node: NodeId,
    /// The token of its incarnation.
    pub token: FencingToken,
}

/// A page request over nodes, ordered by [`Node::seq`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeListParams {
    /// Only nodes in this state.
    pub state: Option<NodeState>,
    /// Start after this cursor; `None` for the first page.
    pub after: Option<Cursor>,
    /// Items per page (1 to 1000).
    pub limit: u32,
}

impl Default for NodeListParams {
    fn default() -> Self {
        NodeListParams { state: None, after: None, limit: 100 }
    }
}

/// Move silent nodes on by the thresholds, judged on the store's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NodeSweepParams {
    /// When a silent node becomes unreachable, then removed.
    pub thresholds: NodeThresholds,
}

/// What a sweep did, and what tells the leader when the next sweep can find a node to move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Swept {
    /// The changes recorded, in `seq` order of their nodes.
    pub changes: Vec<NodeChange>,
    /// The store's time the sweep judged by.
    pub now: StoreTime,
    /// The oldest last heartbeat of the nodes still active after the sweep (`None` when none
    /// is): no active node can become unreachable before it plus the unreachable threshold.
    pub oldest_active_heartbeat: Option<StoreTime>,
}

/// A page request over node state changes, oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeChangesParams {
    /// Only this node's changes.
    pub node: Option<NodeId>,
    /// Start after this cursor; `None` for the first page.
    pub after: Option<Cursor>,
    /// Items per page (1 to 1000).
    pub limit: u32,
}

impl Default for NodeChangesParams {
    fn default() -> Self {
        NodeChangesParams { node: None, after: None, limit: 100 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_and_version_are_checked_by_name() {
        let params = NodeRegisterParams {
            id: NodeId::new("n1").unwrap(),
            host: "web-1".into(),
            version: "0.1.0".into(),
            load: 0,
        };
        assert!(params.check().is_ok());
        let bad_host = NodeRegisterParams { host: "web 1".into(), ..params.clone() };
        let err = bad_host.check().unwrap_err();
        assert!(err.to_string().starts_with(r#"invalid host "web 1""#), "{err}");
        let bad_version = NodeRegisterParams { version: String::new(), ..params };
        let err = bad_version.check().unwrap_err();
        assert!(err.to_string().starts_with(r#"invalid version """#), "{err}");
    }
}
