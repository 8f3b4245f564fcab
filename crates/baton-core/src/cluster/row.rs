//! The cluster tables as the SQL stores keep them: one row type each for nodes, node changes,
//! batches, partitions and partition moves, in plain integers and text, decoded into the core records by the same
//! rules whichever store read them. With the `sqlx` feature the rows are read with
//! `sqlx::FromRow`, by column name (`load`, `changed_at`, `key`), from any of sqlx's databases.

use crate::cluster::{
    BatchJob, BatchState, JsonText, MoveReason, Node, NodeChange, NodeChangeReason, NodeId,
    NodeLoad, NodeState, Partition, PartitionKey, PartitionMove, PartitionState, Strategy,
};
use crate::error::{Error, Result};
use crate::job::row::{corrupt, job_name, parsed};
use crate::lease::FencingToken;
use crate::time::StoreTime;

/// A `baton_nodes` row.
#[derive(Debug)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct NodeRow {
    seq: i64,
    id: String,
    host: String,
    version: String,
    token: i64,
    started_at: i64,
    heartbeat_at: i64,
    load: i64,
    state: String,
    state_changed_at: i64,
}

impl NodeRow {
    /// The node this row holds; a value baton could not have written is an internal error.
    pub fn into_node(self) -> Result<Node> {
        Ok(Node {
            seq: self.seq,
            id: node_id(&self.id)?,
            host: self.host,
            version: self.version,
            token: token(self.token)?,
            started_at: StoreTime::from_millis(self.started_at),
            heartbeat_at: StoreTime::from_millis(self.heartbeat_at),
            load: load(self.load)?,
            state: node_state(&self.state)?,
            state_changed_at: StoreTime::from_millis(self.state_changed_at),
        })
    }
}

/// A live node's id and load, as the assignment rules see it.
#[derive(Debug)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct NodeLoadRow {
    id: String,
    load: i64,
}

impl NodeLoadRow {
    /// The node and load this row holds.
    pub fn into_load(self) -> Result<NodeLoad> {
        Ok(NodeLoad::new(node_id(&self.id)?, load(self.load)?))
    }
}

/// A `baton_node_changes` row.
#[derive(Debug)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct NodeChangeRow {
    id: i64,
    node: String,
    token: i64,
    from_state: Option<String>,
    to_state: String,
    changed_at: i64,
    reason: String,
}

impl NodeChangeRow {
    /// The change this row holds.
    pub fn into_change(self) -> Result<NodeChange> {
        Ok(NodeChange {
            id: self.id,
            node: node_id(&self.node)?,
            token: token(self.token)?,
            from: self.from_state.as_deref().map(node_state).transpose()?,
            to: node_state(&self.to_state)?,
            at: StoreTime::from_millis(self.changed_at),
            reason: parsed::<NodeChangeReason>("node change reason", &self.reason)?,
        })
    }
}

/// A `baton_batches` row.
#[derive(Debug)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct BatchRow {
    id: i64,
    name: String,
    strategy: String,
    stealing: bool,
    state: String,
    created_at: i64,
    finished_at: Option<i64>,
    failure: Option<String>,
}

impl BatchRow {
    /// The batch this row holds.
    pub fn into_batch(self) -> Result<BatchJob> {
        Ok(BatchJob {
            id: self.id,
            name: job_name(&self.name)?,
            strategy: strategy(&self.strategy)?,
            stealing: self.stealing,
            state: parsed::<BatchState>("batch state", &self.state)?,
            created_at: StoreTime::from_millis(self.created_at),
            finished_at: self.finished_at.map(StoreTime::from_millis),
            failure: self.failure,
        })
    }
}

/// A `baton_partitions` row.
#[derive(Debug)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct PartitionRow {
    id: i64,
    batch: i64,
    key: String,
    params: String,
    transferable: bool,
    state: String,
    node: Option<String>,
    token: Option<i64>,
    checkpoint: Option<String>,
    result: Option<String>,
    attempts: i64,
    progress: i64,
    created_at: i64,
    claimed_at: Option<i64>,
    heartbeat_at: Option<i64>,
    finished_at: Option<i64>,
    error: Option<String>,
}

impl PartitionRow {
    /// The partition this row holds.
    pub fn into_partition(self) -> Result<Partition> {
        let instant = |ms: Option<i64>| ms.map(StoreTime::from_millis);
        Ok(Partition {
            id: self.id,
            batch: self.batch,
            key: PartitionKey::new(&self.key).map_err(|_| corrupt("partition key", &self.key))?,
            params: json("parameters", self.params)?,
            transferable: self.transferable,
            state: parsed::<PartitionState>("partition state", &self.state)?,
            node: self.node.as_deref().map(node_id).transpose()?,
            token: self.token.map(token).transpose()?,
            checkpoint: self.checkpoint.map(|text| json("checkpoint", text)).transpose()?,
            result: self.result.map(|text| json("result", text)).transpose()?,
            attempts: u32::try_from(self.attempts)
                .map_err(|_| corrupt("attempts", &self.attempts.to_string()))?,
            progress: u64::try_from(self.progress)
                .map_err(|_| corrupt("progress", &self.progress.to_string()))?,
            created_at: StoreTime::from_millis(self.created_at),
            claimed_at: instant(self.claimed_at),
            heartbeat_at: instant(self.heartbeat_at),
            finished_at: instant(self.finished_at),
            error: self.error,
        })
    }
}

/// A `baton_partition_moves` row.
#[derive(Debug)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct PartitionMoveRow {
    id: i64,
    batch: i64,
    partition_id: i64,
    key: String,
    from_node: String,
    to_node: Option<String>,
    reason: String,
    token: Option<i64>,
    moved_at: i64,
}

impl PartitionMoveRow {
    /// The move this row holds.
    pub fn into_move(self) -> Result<PartitionMove> {
        Ok(PartitionMove {
            id: self.id,
            batch: self.batch,
            partition: self.partition_id,
            key: PartitionKey::new(&self.key).map_err(|_| corrupt("partition key", &self.key))?,
            from: node_id(&self.from_node)?,
            to: self.to_node.as_deref().map(node_id).transpose()?,
            reason: parsed::<MoveReason>("move reason", &self.reason)?,
            token: self.token.map(token).transpose()?,
            at: StoreTime::from_millis(self.moved_at),
        })
    }
}

/// Decodes every row with `decode`, failing on the first unreadable one.
pub fn decode_all<R, T>(rows: Vec<R>, decode: impl Fn(R) -> Result<T>) -> Result<Vec<T>> {
    rows.into_iter().map(decode).collect()
}

/// A count or measure as a signed 64-bit column holds it; `InvalidInput` naming `what` when it
/// does not fit.
pub fn stored_u64(what: &str, value: u64) -> Result<i64> {
    i64::try_from(value).map_err(|_| {
        Error::invalid_input(format!("invalid {what} {value}: expected at most {}", i64::MAX))
    })
}

/// A node id read back from a store.
pub fn node_id(id: &str) -> Result<NodeId> {
    NodeId::new(id).map_err(|_| corrupt("node id", id))
}

/// A node state read back from a store.
pub fn node_state(text: &str) -> Result<NodeState> {
    parsed("node state", text)
}

/// A batch's strategy read back from a store.
pub fn strategy(text: &str) -> Result<Strategy> {
    parsed("partition strategy", text)
}

/// A token read back from a store.
pub fn token(value: i64) -> Result<FencingToken> {
    FencingToken::from_store(value).map_err(|_| corrupt("token", &value.to_string()))
}

fn load(value: i64) -> Result<u32> {
    u32::try_from(value).map_err(|_| corrupt("node load", &value.to_string()))
}

fn json(what: &str, text: String) -> Result<JsonText> {
    let size = text.len();
    JsonText::new(text).map_err(|_| corrupt(&format!("{what} of"), &format!("{size} bytes")))
}
