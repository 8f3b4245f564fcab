//! Cluster nodes and their state changes.

use baton::core::cluster::{Node, NodeChange};
use serde::Serialize;

use super::instant;

/// A cluster node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NodeView {
    /// The store's number for the node; node listings page by it.
    pub seq: i64,
    /// The node's id.
    pub id: String,
    /// The host it runs on.
    pub host: String,
    /// The version of its software.
    pub version: String,
    /// The token of its current incarnation.
    pub token: u64,
    /// When the current incarnation registered.
    pub started_at: String,
    /// Its last heartbeat.
    pub heartbeat_at: String,
    /// The load it last reported.
    pub load: u32,
    /// `active`, `unreachable`, `removed` or `left`.
    pub state: &'static str,
    /// When it entered that state.
    pub state_changed_at: String,
}

impl From<&Node> for NodeView {
    fn from(node: &Node) -> Self {
        NodeView {
            seq: node.seq,
            id: node.id.to_string(),
            host: node.host.clone(),
            version: node.version.clone(),
            token: node.token.get(),
            started_at: instant(node.started_at),
            heartbeat_at: instant(node.heartbeat_at),
            load: node.load,
            state: node.state.as_str(),
            state_changed_at: instant(node.state_changed_at),
        }
    }
}

/// One change of a node's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NodeChangeView {
    /// Position in the history.
    pub id: i64,
    /// The node.
    pub node: String,
    /// The incarnation concerned.
    pub token: u64,
    /// The state before, `None` for a first registration.
    pub from: Option<&'static str>,
    /// The state after.
    pub to: &'static str,
    /// When, on the store's clock.
    pub at: String,
    /// `registered`, `reregistered`, `no-heartbeat` or `left`.
    pub reason: &'static str,
}

impl From<&NodeChange> for NodeChangeView {
    fn from(change: &NodeChange) -> Self {
        NodeChangeView {
            id: change.id,
            node: change.node.to_string(),
            token: change.token.get(),
            from: change.from.map(|state| state.as_str()),
            to: change.to.as_str(),
            at: instant(change.at),
            reason: change.reason.as_str(),
        }
    }
}
