//! Rehoming the partitions of departed nodes (invariant I7): the leader's reassignment, and the
//! same rule applied at once by a leave or a registration. The fates are decided by the core's
//! [`rehome`] against the live nodes' load, inside the transaction that locked the partitions.

use std::collections::{BTreeSet, HashMap};

use baton_core::cluster::{
    Departure, Fate, MoveReason, NodeId, NodeLoad, NodeState, Orphan, Partition,
    PartitionReassignParams, PartitionState, Reassigned, Strategy, rehome,
};
use baton_core::{Error, ErrorKind, FencingToken, Result, StoreTime};
use sqlx::MySqlConnection;

use super::lists::{self, MOST_ROWS};
use super::rows::{NodeLoadRow, NodeStateRow, PartitionRow, decode_all, node_id, strategy};
use super::{Inner, check_limit, moves, now};
use crate::queries::{
    BATCH_STRATEGIES, NODE_LIVE, NODE_STATES, PARTITION_FAIL_ORPHANS, PARTITION_LOCK_ORPHANS,
    PARTITION_OF_NODE, PARTITION_ORPHANS, PARTITION_REQUEUE,
};
use crate::tx::{self, Failure};
use crate::wakeups::{self, PENDING};

/// Rehomes, lowest id first and up to the limit, the pending and claimed partitions whose node
/// is not active, not registered, or registered again since it claimed them. Candidates are
/// found by a plain read, then locked with SKIP LOCKED and judged again on their latest
/// versions and their nodes' latest records, so a reassignment never waits for a lock.
pub(super) async fn reassign(inner: &Inner, params: PartitionReassignParams) -> Result<Reassigned> {
    let limit = check_limit("reassignment limit", params.limit)?;
    let doing = "reassigning the partitions of departed nodes";
    let (reassigned, requeued) = tx::transaction!(&inner.pool, doing, |conn| async {
        let candidates: Vec<i64> = sqlx::query_scalar(PARTITION_ORPHANS)
            .bind(i64::from(limit))
            .fetch_all(&mut *conn)
            .await?;
        let locked = if candidates.is_empty() {
            Vec::new()
        } else {
            let statement = lists::ids(PARTITION_LOCK_ORPHANS, candidates.len());
            let mut query =
                sqlx::query_as::<_, PartitionRow>(sqlx::AssertSqlSafe(statement)).persistent(false);
            for id in &candidates {
                query = query.bind(id);
            }
            let rows = query.fetch_all(&mut *conn).await?;
            decode_all(rows, PartitionRow::into_partition)?
        };
        let nodes = nodes_of(&mut *conn, &locked).await?;
        let strays: Vec<(Partition, Departure)> = locked
            .into_iter()
            .filter_map(|partition| {
                let node = partition.node.as_ref()?;
                departure(&partition, nodes.get(node)).map(|departure| (partition, departure))
            })
            .collect();
        if strays.is_empty() {
            return Ok((Reassigned::default(), false));
        }
        let now = now(&mut *conn).await?;
        let reassigned = write_fates(&mut *conn, strays, now).await?;
        let requeued = !reassigned.moved.is_empty();
        if requeued {
            wakeups::raise(&mut *conn, PENDING).await?;
        }
        Ok((reassigned, requeued))
    })?;
    if requeued {
        inner.bell.ring().await;
    }
    Ok(reassigned)
}

/// The latest committed state and incarnation of each node of the partitions (a node missing
/// from the answer is not registered).
async fn nodes_of(
    conn: &mut MySqlConnection,
    partitions: &[Partition],
) -> Result<HashMap<NodeId, (NodeState, FencingToken)>, Failure> {
    let nodes: BTreeSet<&NodeId> = partitions.iter().filter_map(|p| p.node.as_ref()).collect();
    let nodes: Vec<&NodeId> = nodes.into_iter().collect();
    let mut found = HashMap::with_capacity(nodes.len());
    for chunk in nodes.chunks(MOST_ROWS) {
        let statement = lists::ids(NODE_STATES, chunk.len());
        let mut query =
            sqlx::query_as::<_, NodeStateRow>(sqlx::AssertSqlSafe(statement)).persistent(false);
        for node in chunk {
            query = query.bind(node.as_str());
        }
        for row in query.fetch_all(&mut *conn).await? {
            found.insert(node_id(&row.id)?, (row.state()?, row.token()?));
        }
    }
    Ok(found)
}

/// Why a partition's node can no longer run it, given that node's state and incarnation
/// (`None`: not registered); `None` when it still can. A partition claimed under a token older
/// than its active node's incarnation was left by a previous incarnation.
fn departure(partition: &Partition, node: Option<&(NodeState, FencingToken)>) -> Option<Departure> {
    match node {
        None => Some(Departure::Unregistered),
        Some((state, incarnation)) => Departure::from_state(Some(*state)).or_else(|| {
            let stale = partition.state == PartitionState::Claimed
                && partition.token.is_some_and(|claim| claim < *incarnation);
            stale.then_some(Departure::Reregistered)
        }),
    }
}

/// Locks, in id order, the partitions of `node` in either of `states`, and reads them.
pub(super) async fn lock_of_node(
    conn: &mut MySqlConnection,
    node: &NodeId,
    states: [PartitionState; 2],
) -> Result<Vec<Partition>, Failure> {
    let rows: Vec<PartitionRow> = sqlx::query_as(PARTITION_OF_NODE)
        .bind(node.as_str())
        .bind(states[0].as_str())
        .bind(states[1].as_str())
        .fetch_all(conn)
        .await?;
    Ok(decode_all(rows, PartitionRow::into_partition)?)
}

/// Rehomes locked partitions of a node that departed for `departure`.
pub(super) async fn apply(
    conn: &mut MySqlConnection,
    partitions: Vec<Partition>,
    departure: Departure,
    now: StoreTime,
) -> Result<Reassigned, Failure> {
    let strays = partitions.into_iter().map(|partition| (partition, departure)).collect();
    write_fates(conn, strays, now).await
}

/// Decides the fate of each locked partition, in order, and writes them: requeued ones in one
/// statement, failed ones in another, and the moves of the requeued ones in a third (per
/// [`MOST_ROWS`]).
async fn write_fates(
    conn: &mut MySqlConnection,
    strays: Vec<(Partition, Departure)>,
    now: StoreTime,
) -> Result<Reassigned, Failure> {
    if strays.is_empty() {
        return Ok(Reassigned::default());
    }
    let strategies = strategies(conn, &strays).await?;
    let mut orphans = Vec::with_capacity(strays.len());
    for (partition, departure) in &strays {
        let node = partition.node.clone().ok_or_else(|| unassigned(partition.id))?;
        let strategy = strategies.get(&partition.batch).copied().ok_or_else(|| {
            Error::new(ErrorKind::Internal, format!("batch {} is missing", partition.batch))
        })?;
        orphans.push(Orphan {
            key: partition.key.clone(),
            node,
            departure: *departure,
            claimed: partition.state == PartitionState::Claimed,
            transferable: partition.transferable,
            strategy,
        });
    }
    let rows: Vec<NodeLoadRow> = sqlx::query_as(NODE_LIVE).fetch_all(&mut *conn).await?;
    let live: Vec<NodeLoad> = decode_all(rows, NodeLoadRow::into_load)?;
    let fates = rehome(&orphans, &live);
    let mut reassigned = Reassigned::default();
    let mut departed = Vec::new();
    for ((mut partition, _), fate) in strays.into_iter().zip(fates) {
        match fate {
            Fate::Requeue(node) => {
                let from = std::mem::replace(&mut partition.node, node);
                departed.push(from.ok_or_else(|| unassigned(partition.id))?);
                (partition.state, partition.error) = (PartitionState::Pending, None);
                reassigned.moved.push(partition);
            }
            Fate::Fail(reason) => {
                (partition.state, partition.error) = (PartitionState::Failed, Some(reason));
                partition.finished_at = Some(now);
                reassigned.failed.push(partition);
            }
            other => {
                return Err(Error::new(
                    ErrorKind::Internal,
                    format!("MySQL store: cannot apply the partition fate {other:?}"),
                )
                .into());
            }
        }
    }
    for chunk in reassigned.moved.chunks(MOST_ROWS) {
        let cases = chunk.iter().map(|p| (p.id, p.node.as_ref().map(NodeId::as_str)));
        write(conn, PARTITION_REQUEUE, None, cases).await?;
    }
    for chunk in reassigned.failed.chunks(MOST_ROWS) {
        let cases = chunk.iter().map(|p| (p.id, p.error.as_deref()));
        write(conn, PARTITION_FAIL_ORPHANS, Some(now), cases).await?;
    }
    let moves = reassigned.moved.iter().zip(&departed);
    moves::record(conn, moves, MoveReason::Failover, now).await?;
    Ok(reassigned)
}

/// Runs a statement with `/*cases*/` arms (id, value) and `/*ids*/`, after `now` when given.
async fn write<'a>(
    conn: &mut MySqlConnection,
    statement: &str,
    now: Option<StoreTime>,
    cases: impl Iterator<Item = (i64, Option<&'a str>)> + Clone,
) -> Result<(), Failure> {
    let count = cases.clone().count();
    let mut query =
        sqlx::query(sqlx::AssertSqlSafe(lists::cases(statement, count))).persistent(false);
    if let Some(now) = now {
        query = query.bind(now.as_millis());
    }
    for (id, value) in cases.clone() {
        query = query.bind(id).bind(value);
    }
    for (id, _) in cases {
        query = query.bind(id);
    }
    query.execute(conn).await?;
    Ok(())
}

/// The strategy of each batch of the partitions.
async fn strategies(
    conn: &mut MySqlConnection,
    strays: &[(Partition, Departure)],
) -> Result<HashMap<i64, Strategy>, Failure> {
    let batches: BTreeSet<i64> = strays.iter().map(|(partition, _)| partition.batch).collect();
    let batches: Vec<i64> = batches.into_iter().collect();
    let mut strategies = HashMap::with_capacity(batches.len());
    for chunk in batches.chunks(MOST_ROWS) {
        let statement = lists::ids(BATCH_STRATEGIES, chunk.len());
        let mut query =
            sqlx::query_as::<_, (i64, String)>(sqlx::AssertSqlSafe(statement)).persistent(false);
        for id in chunk {
            query = query.bind(id);
        }
        for (id, text) in query.fetch_all(&mut *conn).await? {
            strategies.insert(id, strategy(&text)?);
        }
    }
    Ok(strategies)
}

fn unassigned(id: i64) -> Error {
    Error::new(ErrorKind::Internal, format!("MySQL store: orphaned partition {id} has no node"))
}
