//! Conversions between the cluster tables' rows and the core records.

use baton_core::cluster::{
    BatchJob, BatchState, JsonText, Node, NodeChange, NodeChangeReason, NodeId, NodeLoad,
    NodeState, Partition, PartitionKey, PartitionState, Strategy,
};
use baton_core::{Error, FencingToken, JobName, Result, StoreTime};

use crate::error::corrupt;

/// A `baton_nodes` row as stored.
#[derive(Debug, sqlx::FromRow)]
pub(super) struct NodeRow {
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
    /// The core record this row holds.
    pub(super) fn into_node(self) -> Result<Node> {
        Ok(Node {
            seq: self.seq,
            id: node_id(self.id)?,
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
#[derive(Debug, sqlx::FromRow)]
pub(super) struct NodeLoadRow {
    id: String,
    load: i64,
}

impl NodeLoadRow {
    /// The core record this row holds.
    pub(super) fn into_load(self) -> Result<NodeLoad> {
        Ok(NodeLoad::new(node_id(self.id)?, load(self.load)?))
    }
}

/// A `baton_node_changes` row as stored.
#[derive(Debug, sqlx::FromRow)]
pub(super) struct NodeChangeRow {
    id: i64,
    node: String,
    token: i64,
    from_state: Option<String>,
    to_state: String,
    at: i64,
    reason: String,
}

impl NodeChangeRow {
    /// The core record this row holds.
    pub(super) fn into_change(self) -> Result<NodeChange> {
        Ok(NodeChange {
            id: self.id,
            node: node_id(self.node)?,
            token: token(self.token)?,
            from: self.from_state.as_deref().map(node_state).transpose()?,
            to: node_state(&self.to_state)?,
            at: StoreTime::from_millis(self.at),
            reason: self
                .reason
                .parse::<NodeChangeReason>()
                .map_err(|_| corrupt("node change reason", &self.reason))?,
        })
    }
}

/// A `baton_batches` row as stored.
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
    /// The core record this row holds.
    pub(super) fn into_batch(self) -> Result<BatchJob> {
        Ok(BatchJob {
            id: self.id,
            name: JobName::new(&self.name).map_err(|_| corrupt("job name", &self.name))?,
            strategy: strategy(&self.strategy)?,
            state: self
                .state
                .parse::<BatchState>()
                .map_err(|_| corrupt("batch state", &self.state))?,
            created_at: StoreTime::from_millis(self.created_at),
            finished_at: self.finished_at.map(StoreTime::from_millis),
            failure: self.failure,
        })
    }
}

/// A `baton_partitions` row as stored.
#[derive(Debug, sqlx::FromRow)]
pub(super) struct PartitionRow {
    id: i64,
    batch: i64,
    key: String,
    params: String,
    transferable: i64,
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
    /// The core record this row holds.
    pub(super) fn into_partition(self) -> Result<Partition> {
        let time = |millis: Option<i64>| millis.map(StoreTime::from_millis);
        Ok(Partition {
            id: self.id,
            batch: self.batch,
            key: PartitionKey::new(&self.key).map_err(|_| corrupt("partition key", &self.key))?,
            params: json_text("parameters", self.params)?,
            transferable: match self.transferable {
                0 => false,
                1 => true,
                other => return Err(corrupt("transferable flag", other)),
            },
            state: partition_state(&self.state)?,
            node: self.node.map(node_id).transpose()?,
            token: self.token.map(token).transpose()?,
            checkpoint: self.checkpoint.map(|text| json_text("checkpoint", text)).transpose()?,
            result: self.result.map(|text| json_text("result", text)).transpose()?,
            attempts: u32::try_from(self.attempts)
                .map_err(|_| corrupt("attempts", self.attempts))?,
            progress: u64::try_from(self.progress)
                .map_err(|_| corrupt("progress", self.progress))?,
            created_at: StoreTime::from_millis(self.created_at),
            claimed_at: time(self.claimed_at),
            heartbeat_at: time(self.heartbeat_at),
            finished_at: time(self.finished_at),
            error: self.error,
        })
    }
}

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

/// Decodes every row with `decode`, failing on the first unreadable one.
pub(super) fn decode_all<R, T>(rows: Vec<R>, decode: impl Fn(R) -> Result<T>) -> Result<Vec<T>> {
    rows.into_iter().map(decode).collect()
}

/// A count or measure as stored in a signed 64-bit column; `InvalidInput` naming `what` when
/// it does not fit.
pub(super) fn stored_u64(what: &str, value: u64) -> Result<i64> {
    i64::try_from(value).map_err(|_| {
        Error::invalid_input(format!("invalid {what} {value}: expected at most {}", i64::MAX))
    })
}

fn node_id(id: String) -> Result<NodeId> {
    NodeId::new(&id).map_err(|_| corrupt("node id", id))
}

fn load(value: i64) -> Result<u32> {
    u32::try_from(value).map_err(|_| corrupt("node load", value))
}

fn token(value: i64) -> Result<FencingToken> {
    FencingToken::from_store(value).map_err(|_| corrupt("token", value))
}

fn node_state(text: &str) -> Result<NodeState> {
    text.parse().map_err(|_| corrupt("node state", text))
}

fn partition_state(text: &str) -> Result<PartitionState> {
    text.parse().map_err(|_| corrupt("partition state", text))
}

fn strategy(text: &str) -> Result<Strategy> {
    text.parse().map_err(|_| corrupt("partition strategy", text))
}

fn json_text(what: &str, text: String) -> Result<JsonText> {
    let size = text.len();
    JsonText::new(text).map_err(|_| corrupt(&format!("{what} of"), format!("{size} bytes")))
}
