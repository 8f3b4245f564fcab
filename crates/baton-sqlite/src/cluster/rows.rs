//! Cluster rows: the SQL stores' shared row types, and the joins rehoming reads.

use baton_core::Result;
use baton_core::cluster::row::{node_state, strategy};
use baton_core::cluster::{NodeState, Partition, Strategy};

pub(super) use baton_core::cluster::row::{
    BatchRow, NodeChangeRow, NodeLoadRow, NodeRow, PartitionRow, decode_all, stored_u64,
};

/// A partition with the strategy of its batch, which rehoming needs.
#[derive(Debug, sqlx::FromRow)]
pub(super) struct OrphanRow {
    #[sqlx(flatten)]
    partition: PartitionRow,
    strategy: String,
}

impl OrphanRow {
    /// The partition and its batch's strategy.
    pub(super) fn into_parts(self) -> Result<(Partition, Strategy)> {
        Ok((self.partition.into_partition()?, strategy(&self.strategy)?))
    }
}

/// A partition with the strategy of its batch and the state of its node.
#[derive(Debug, sqlx::FromRow)]
pub(super) struct StrayRow {
    #[sqlx(flatten)]
    orphan: OrphanRow,
    /// `None` when no node of that id is registered.
    node_state: Option<String>,
}

impl StrayRow {
    /// The partition, its batch's strategy and the state of its node.
    pub(super) fn into_parts(self) -> Result<(Partition, Strategy, Option<NodeState>)> {
        let (partition, strategy) = self.orphan.into_parts()?;
        Ok((partition, strategy, self.node_state.as_deref().map(node_state).transpose()?))
    }
}
