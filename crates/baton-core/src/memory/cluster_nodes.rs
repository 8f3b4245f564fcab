//! Node operations of the in-memory `ClusterStore`: registration, heartbeats, leaving, the
//! sweep, and reading nodes and their history.

use super::cluster_state::{ClusterRecords, page};
use crate::cluster::{
    Departure, Node, NodeChange, NodeChangeReason, NodeChangesParams, NodeHeartbeatOutcome,
    NodeHeartbeatParams, NodeLeaveParams, NodeListParams, NodeRegisterParams, NodeState,
    NodeSweepParams, PartitionState, Swept, next_state,
};
use crate::error::Result;
use crate::page::Page;
use crate::time::StoreTime;

impl ClusterRecords {
    /// Registers a new incarnation; a previous one of the same id is replaced and its claimed
    /// partitions rehomed.
    pub(super) fn register(&mut self, params: NodeRegisterParams, now: StoreTime) -> Result<Node> {
        params.check()?;
        let token = self.next_token()?;
        let fresh = Node {
            seq: 0,
            id: params.id,
            host: params.host,
            version: params.version,
            token,
            started_at: now,
            heartbeat_at: now,
            load: params.load,
            state: NodeState::Active,
            state_changed_at: now,
        };
        let Some(index) = self.node_index(&fresh.id) else {
            let index = self.insert_node(fresh);
            let node = self.nodes[index].clone();
            self.record_change(&node, None, NodeChangeReason::Registered, now);
            return Ok(node);
        };
        let (seq, from) = (self.nodes[index].seq, self.nodes[index].state);
        self.nodes[index] = Node { seq, ..fresh };
        let node = self.nodes[index].clone();
        self.record_change(&node, Some(from), NodeChangeReason::Reregistered, now);
        let orphans = self.partitions_of(&node, &[PartitionState::Claimed]);
        self.rehome_all(orphans, Departure::Reregistered, now);
        Ok(node)
    }

    /// Stamps the node's heartbeat and those of the partitions it still holds.
    pub(super) fn heartbeat(
        &mut self,
        params: NodeHeartbeatParams,
        now: StoreTime,
    ) -> Result<NodeHeartbeatOutcome> {
        let index = self.active_node(&params.node, params.token)?;
        let node = &mut self.nodes[index];
        node.heartbeat_at = now;
        node.load = params.load;
        let node = node.clone();
        let mut lost = Vec::new();
        for beat in params.partitions {
            match self.claimed(beat.id, beat.token) {
                Ok(partition) if partition.node.as_ref() == Some(&node.id) => {
                    partition.heartbeat_at = Some(now);
                    partition.progress = partition.progress.max(beat.progress);
                }
                _ => lost.push(beat.id),
            }
        }
        Ok(NodeHeartbeatOutcome { node, lost })
    }

    /// Marks the node as left and rehomes its pending and claimed partitions.
    pub(super) fn leave(&mut self, params: NodeLeaveParams, now: StoreTime) -> Result<Node> {
        let index = self.active_node(&params.node, params.token)?;
        let node = &mut self.nodes[index];
        node.state = NodeState::Left;
        node.state_changed_at = now;
        let node = node.clone();
        self.record_change(&node, Some(NodeState::Active), NodeChangeReason::Left, now);
        let orphans =
            self.partitions_of(&node, &[PartitionState::Pending, PartitionState::Claimed]);
        self.rehome_all(orphans, Departure::Left, now);
        Ok(node)
    }

    /// Moves silent nodes on by the thresholds and records the changes; answers them with the
    /// oldest heartbeat of the nodes left active.
    pub(super) fn sweep(&mut self, params: NodeSweepParams, now: StoreTime) -> Swept {
        let mut changes = Vec::new();
        for index in 0..self.nodes.len() {
            let node = &mut self.nodes[index];
            let from = node.state;
            let to = next_state(from, node.heartbeat_at, now, &params.thresholds);
            if to == from {
                continue;
            }
            node.state = to;
            node.state_changed_at = now;
            let node = node.clone();
            changes.push(self.record_change(&node, Some(from), NodeChangeReason::NoHeartbeat, now));
        }
        let active = self.nodes.iter().filter(|node| node.state == NodeState::Active);
        let oldest_active_heartbeat = active.map(|node| node.heartbeat_at).min();
        Swept { changes, now, oldest_active_heartbeat }
    }

    /// One page of nodes by seq.
    pub(super) fn node_list(&self, params: NodeListParams) -> Result<Page<Node>> {
        let matching = self.nodes.iter().filter(|n| params.state.is_none_or(|s| n.state == s));
        page(matching, params.after, params.limit, |n| n.seq)
    }

    /// One page of node changes by id.
    pub(super) fn node_changes(&self, params: NodeChangesParams) -> Result<Page<NodeChange>> {
        let matching =
            self.changes.iter().filter(|c| params.node.as_ref().is_none_or(|n| &c.node == n));
        page(matching, params.after, params.limit, |c| c.id)
    }

    /// The indexes of the partitions assigned to or claimed by `node` in one of `states`.
    fn partitions_of(&self, node: &Node, states: &[PartitionState]) -> Vec<usize> {
        let on_node = |p: &&crate::cluster::Partition| p.node.as_ref() == Some(&node.id);
        let indexes = self.partitions.iter().enumerate();
        indexes.filter(|(_, p)| on_node(p) && states.contains(&p.state)).map(|(i, _)| i).collect()
    }

    fn rehome_all(&mut self, orphans: Vec<usize>, departure: Departure, now: StoreTime) {
        let orphans = orphans.into_iter().map(|i| (i, departure)).collect();
        self.rehome(orphans, now);
    }
}
