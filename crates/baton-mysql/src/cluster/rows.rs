//! Cluster rows: the SQL stores' shared row types, and the node states a reassignment reads.

use baton_core::cluster::NodeState;
use baton_core::cluster::row::{node_state, token};
use baton_core::{FencingToken, Result};

pub(super) use baton_core::cluster::row::{
    BatchRow, NodeChangeRow, NodeLoadRow, NodeRow, PartitionRow, decode_all, node_id, stored_u64,
    strategy,
};

/// A node's state and incarnation, as a reassignment judges its partitions by.
#[derive(Debug, sqlx::FromRow)]
pub(super) struct NodeStateRow {
    pub(super) id: String,
    state: String,
    token: i64,
}

impl NodeStateRow {
    pub(super) fn state(&self) -> Result<NodeState> {
        node_state(&self.state)
    }

    pub(super) fn token(&self) -> Result<FencingToken> {
        token(self.token)
    }
}
