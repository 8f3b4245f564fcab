//! Decoding the cluster tables' rows into the core records.

use baton_core::cluster::{
    BatchJob, BatchState, JsonText, Node, NodeChange, NodeChangeReason, NodeId, NodeLoad,
    NodeState, Partition, PartitionKey, PartitionState, Strategy,
};
use baton_core::{Error, FencingToken, JobName, Result, StoreTime};

use crate::row::corrupt;

/// A `baton_nodes` row.
#[derive(Debug, sqlx::FromRow)]
pub(super) struct NodeRow {
    seq: i64,
    id: String,
    host: String,
    version: String,
    token: i64,
    started_at: i64,
    heartbeat_at: i64,
    reported_load: i64,
    state: String,
    state_changed_at: i64,
}

impl NodeRow {
    pub(super) fn into_node(self) -> Result<Node> {
        Ok(Node {
            seq: self.seq,
            id: node_id(&self.id)?,
            host: self.host,
            version: self.version,
            token: token(self.token)?,
            started_at: StoreTime::from_millis(self.started_at),
            heartbeat_at: StoreTime::from_millis(self.heartbeat_at),
            load: load(self.reported_load)?,
            state: parsed("node state", &self.state)?,
            state_changed_at: StoreTime::from_millis(self.state_changed_at),
        })
    }
}

/// A live node's id and load.
#[derive(Debug, sqlx::FromRow)]
pub(super) struct NodeLoadRow {
    id: String,
    reported_load: i64,
}

impl NodeLoadRow {
    pub(super) fn into_load(self) -> Result<NodeLoad> {
        Ok(NodeLoad::new(node_id(&self.id)?, load(self.reported_load)?))
    }
}

/// A node's state and incarnation, as a reassignment judges its partitions by.
#[derive(Debug, sqlx::FromRow)]
pub(super) struct NodeStateRow {
    pub(super) id: String,
    state: String,
    token: i64,
}

impl NodeStateRow {
    pub(super) fn state(&self) -> Result<NodeState> {
        parsed("node state", &self.state)
    }

    pub(super) fn token(&self) -> Result<FencingToken> {
        token(self.token)
    }
}

/// A `baton_node_changes` row.
#[derive(Debug, sqlx::FromRow)]
pub(super) struct NodeChangeRow {
    id: i64,
    node: String,
    token: i64,
    from_state: Option<String>,
    to_state: String,
    changed_at: i64,
    reason: String,
}

impl NodeChangeRow {
    pub(super) fn into_change(self) -> Result<NodeChange> {
        Ok(NodeChange {
            id: self.id,
            node: node_id(&self.node)?,
            token: token(self.token)?,
            from: self.from_state.as_deref().map(|s| parsed("node state", s)).transpose()?,
            to: parsed("node state", &self.to_state)?,
            at: StoreTime::from_millis(self.changed_at),
            reason: parsed::<NodeChangeReason>("node change reason", &self.reason)?,
        })
    }
}

/// A `baton_batches` row.
#[derive(Debug, sqlx::FromRow)]
pub(super) struct BatchRow {
    id: i64,
    name: String,
    strategy: String,
    state: String,
    created_at: i64,
    finished_at: Option<i64>,
    failure: Option<String>,
}

impl BatchRow {
    pub(super) fn into_batch(self) -> Result<BatchJob> {
        Ok(BatchJob {
            id: self.id,
            name: JobName::new(&self.name).map_err(|_| corrupt("job name", &self.name))?,
            strategy: strategy(&self.strategy)?,
            state: parsed::<BatchState>("batch state", &self.state)?,
            created_at: StoreTime::from_millis(self.created_at),
            finished_at: self.finished_at.map(StoreTime::from_millis),
            failure: self.failure,
        })
    }
}

/// A `baton_partitions` row.
#[derive(Debug, sqlx::FromRow)]
pub(super) struct PartitionRow {
    id: i64,
    batch: i64,
    partition_key: String,
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
    pub(super) fn into_partition(self) -> Result<Partition> {
        let time = |millis: Option<i64>| millis.map(StoreTime::from_millis);
        let key = &self.partition_key;
        Ok(Partition {
            id: self.id,
            batch: self.batch,
            key: PartitionKey::new(key).map_err(|_| corrupt("partition key", key))?,
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
            claimed_at: time(self.claimed_at),
            heartbeat_at: time(self.heartbeat_at),
            finished_at: time(self.finished_at),
            error: self.error,
        })
    }
}

/// Decodes every row with `decode`, failing on the first unreadable one.
pub(super) fn decode_all<R, T>(rows: Vec<R>, decode: impl Fn(R) -> Result<T>) -> Result<Vec<T>> {
    rows.into_iter().map(decode).collect()
}

/// A count or measure as a signed 64-bit column holds it; `InvalidInput` naming `what` when it
/// does not fit.
pub(super) fn stored_u64(what: &str, value: u64) -> Result<i64> {
    i64::try_from(value).map_err(|_| {
        Error::invalid_input(format!("invalid {what} {value}: expected at most {}", i64::MAX))
    })
}

/// A batch's strategy as stored.
pub(super) fn strategy(text: &str) -> Result<Strategy> {
    parsed("partition strategy", text)
}

pub(super) fn node_id(id: &str) -> Result<NodeId> {
    NodeId::new(id).map_err(|_| corrupt("node id", id))
}

fn token(value: i64) -> Result<FencingToken> {
    FencingToken::from_store(value).map_err(|_| corrupt("token", &value.to_string()))
}

fn load(value: i64) -> Result<u32> {
    u32::try_from(value).map_err(|_| corrupt("node load", &value.to_string()))
}

fn parsed<T: std::str::FromStr>(what: &str, text: &str) -> Result<T> {
    text.parse().map_err(|_| corrupt(what, text))
}

fn json(what: &str, text: String) -> Result<JsonText> {
    let size = text.len();
    JsonText::new(text).map_err(|_| corrupt(&format!("{what} of"), &format!("{size} bytes")))
}
