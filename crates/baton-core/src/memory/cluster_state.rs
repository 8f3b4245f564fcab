//! The records of the in-memory `ClusterStore` and the helpers its operations share: node,
//! batch and partition tables numbered from 1, the change history, and the token counter.

use std::collections::BTreeMap;
use std::ops::Range;

use crate::cluster::{
    BatchJob, MoveReason, Node, NodeChange, NodeChangeReason, NodeId, NodeLoad, NodeState,
    Partition, PartitionMove, node_lost, partition_lost,
};
use crate::error::Result;
use crate::lease::FencingToken;
use crate::page::{Cursor, Page, check_page_size};
use crate::time::StoreTime;

/// Everything the store holds, behind the store's one mutex. The record numbered `n` (node
/// `seq`, change, batch or partition id) sits at index `n - 1` of its table.
#[derive(Default)]
pub(super) struct ClusterRecords {
    pub(super) nodes: Vec<Node>,
    node_index: BTreeMap<NodeId, usize>,
    pub(super) changes: Vec<NodeChange>,
    pub(super) batches: Vec<BatchJob>,
    /// The indexes of each batch's partitions, by batch index: a batch's partitions are
    /// created together, so they are contiguous.
    pub(super) batch_partitions: Vec<Range<usize>>,
    pub(super) partitions: Vec<Partition>,
    /// Every move of a partition between nodes, numbered from 1.
    pub(super) moves: Vec<PartitionMove>,
    last_token: u64,
    /// Counts the writes that made partitions pending for others to claim (a batch created,
    /// partitions requeued), so that the store knows when to wake its pending feeds.
    pub(super) pending_writes: u64,
}

impl ClusterRecords {
    /// Issues the next fencing token: one counter for the whole store, never reused.
    pub(super) fn next_token(&mut self) -> Result<FencingToken> {
        let token = FencingToken::new(self.last_token.saturating_add(1))?;
        self.last_token = token.get();
        Ok(token)
    }

    /// The index of the node registered under `id`.
    pub(super) fn node_index(&self, id: &NodeId) -> Option<usize> {
        self.node_index.get(id).copied()
    }

    /// Appends a node first registered, numbering it; answers its index.
    pub(super) fn insert_node(&mut self, mut node: Node) -> usize {
        node.seq = number(self.nodes.len());
        self.node_index.insert(node.id.clone(), self.nodes.len());
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// The index of the node `id` if it is active under `token`, or `LeaseLost`.
    pub(super) fn active_node(&self, id: &NodeId, token: FencingToken) -> Result<usize> {
        self.node_index(id)
            .filter(|i| self.nodes[*i].state.is_live() && self.nodes[*i].token == token)
            .ok_or_else(|| node_lost(id, token))
    }

    /// The state of the node `id`, or `None` if it is not registered.
    pub(super) fn node_state(&self, id: &NodeId) -> Option<NodeState> {
        self.node_index(id).map(|i| self.nodes[i].state)
    }

    /// Every active node with its load.
    pub(super) fn live_loads(&self) -> Vec<NodeLoad> {
        self.nodes.iter().filter(|n| n.state.is_live()).map(NodeLoad::from).collect()
    }

    /// Records that `node` (as it is now) came from `from` for `reason` at `now`.
    pub(super) fn record_change(
        &mut self,
        node: &Node,
        from: Option<NodeState>,
        reason: NodeChangeReason,
        now: StoreTime,
    ) -> NodeChange {
        let change = NodeChange {
            id: number(self.changes.len()),
            node: node.id.clone(),
            token: node.token,
            from,
            to: node.state,
            at: now,
            reason,
        };
        self.changes.push(change.clone());
        change
    }

    /// Records that `partition` (as it is now) moved from node `from` for `reason`.
    pub(super) fn record_move(
        &mut self,
        partition: &Partition,
        from: NodeId,
        reason: MoveReason,
        token: Option<FencingToken>,
        now: StoreTime,
    ) {
        self.moves.push(PartitionMove {
            id: number(self.moves.len()),
            batch: partition.batch,
            partition: partition.id,
            key: partition.key.clone(),
            from,
            to: partition.node.clone(),
            reason,
            token,
            at: now,
        });
    }

    /// The partition `id` if it is claimed under `token`, or `LeaseLost`.
    pub(super) fn claimed(&mut self, id: i64, token: FencingToken) -> Result<&mut Partition> {
        index(id)
            .and_then(|i| self.partitions.get_mut(i))
            .filter(|p| p.state == crate::cluster::PartitionState::Claimed)
            .filter(|p| p.token == Some(token))
            .ok_or_else(|| partition_lost(id, token))
    }

    /// The batch a stored partition belongs to.
    pub(super) fn batch_of(&self, partition: &Partition) -> &BatchJob {
        &self.batches[index(partition.batch).expect("a stored batch id")]
    }
}

/// The number of the record appended at `index`.
pub(super) fn number(index: usize) -> i64 {
    i64::try_from(index).unwrap_or(i64::MAX).saturating_add(1)
}

/// The index of the record numbered `id`, if it can exist.
pub(super) fn index(id: i64) -> Option<usize> {
    usize::try_from(id.checked_sub(1)?).ok()
}

/// One page of `items` (already in key order) after `after`, keyed by `key`.
pub(super) fn page<'a, T: Clone + 'a>(
    items: impl Iterator<Item = &'a T>,
    after: Option<Cursor>,
    limit: u32,
    key: impl Fn(&T) -> i64,
) -> Result<Page<T>> {
    let limit = check_page_size(limit)? as usize;
    let after = after.map_or(i64::MIN, Cursor::last_id);
    let mut items: Vec<T> =
        items.filter(|item| key(item) > after).take(limit + 1).cloned().collect();
    let next = (items.len() > limit).then(|| {
        items.truncate(limit);
        Cursor::after(key(&items[limit - 1]))
    });
    Ok(Page { items, next })
}
