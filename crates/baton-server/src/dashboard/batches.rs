//! The batches, newest first, and one batch's page with a progress bar per partition.

use askama::Template;
use axum::extract::{Path, State};
use baton::core::cluster::{
    ClusterStore, Partition, PartitionListParams, PartitionMove, PartitionMovesParams,
    PartitionState, batch_not_found,
};
use baton::{Cursor, StoreTime};

use super::format::relative;
use super::rows::BatchRow;
use super::{PageResult, page};
use crate::params::{PageQuery, Query, id};
use crate::state::AppState;
use crate::tail::{Batches, ceiling, newest};

/// Batches per page.
const BATCHES: u32 = 50;
/// Partitions per page.
const PARTITIONS: u32 = 100;
/// The most partitions counted for a batch's summary.
const COUNTED: usize = 10_000;
/// Moves shown on a batch's page.
const MOVES: u32 = 100;

#[derive(Template)]
#[template(path = "batches.html")]
struct BatchesPage {
    batches: Vec<BatchRow>,
    older: Option<i64>,
}

#[derive(serde::Deserialize)]
pub(crate) struct BatchesQuery {
    before: Option<String>,
}

/// `/batches`: batches, newest first.
pub(crate) async fn list(
    State(state): State<AppState>,
    Query(query): Query<BatchesQuery>,
) -> PageResult {
    let before = query.before.as_deref().map(|b| id("batch", b));
    let cluster = state.backend.cluster();
    let all = Batches { store: &*cluster };
    let below = match before.transpose()? {
        Some(before) => Some(before),
        None => ceiling(&all, &state.hints.batches).await?,
    };
    let found = newest(&all, below, BATCHES).await?;
    let older = found.last().filter(|_| found.len() == BATCHES as usize).map(|b| b.id);
    page(&BatchesPage { batches: found.iter().map(BatchRow::new).collect(), older })
}

/// A partition with its progress bar.
pub(crate) struct PartitionRow {
    pub key: String,
    pub state: &'static str,
    pub node: String,
    /// The bar's value, or `None` when how much is left is unknown (the bar is then drawn
    /// without a value, as an indeterminate bar).
    pub value: Option<u64>,
    /// The bar's maximum.
    pub max: u64,
    pub label: String,
    pub attempts: u32,
    pub heartbeat: String,
    pub error: String,
}

/// The progress bars of a page of partitions.
///
/// A partition reports units of work done but not how many it has, so a bar is drawn against
/// the most units any completed partition of the page did (partitions of one batch are
/// usually alike). Only a completed partition's bar is full. A partition that did some work
/// has no value (an indeterminate bar) when no partition of the page completed, or when it
/// did as much as the largest completed one without completing: how much it has left is
/// unknown.
fn rows(partitions: &[Partition], now: StoreTime) -> Vec<PartitionRow> {
    let reference = partitions
        .iter()
        .filter(|p| p.state == PartitionState::Completed)
        .map(|p| p.progress)
        .max()
        .unwrap_or(0);
    partitions
        .iter()
        .map(|p| {
            let done = p.state == PartitionState::Completed;
            let (value, max) = if done {
                (Some(p.progress.max(1)), p.progress.max(1))
            } else if p.progress < reference || p.progress == 0 {
                (Some(p.progress), reference.max(1))
            } else {
                (None, reference.max(1))
            };
            PartitionRow {
                key: p.key.to_string(),
                state: p.state.as_str(),
                node: p.node.as_ref().map(ToString::to_string).unwrap_or_default(),
                value,
                max,
                label: match value {
                    Some(_) => format!("{} units", p.progress),
                    None => format!("{} units, total unknown", p.progress),
                },
                attempts: p.attempts,
                heartbeat: p.heartbeat_at.map(|at| relative(at, now)).unwrap_or_default(),
                error: p
                    .error
                    .as_deref()
                    .and_then(|e| e.lines().next())
                    .unwrap_or_default()
                    .to_string(),
            }
        })
        .collect()
}

/// A move of a partition between nodes, as the batch's page lists it.
pub(crate) struct MoveRow {
    pub at: String,
    pub key: String,
    pub from: String,
    pub to: String,
    pub reason: &'static str,
    pub token: String,
}

impl MoveRow {
    fn new(moved: &PartitionMove, now: StoreTime) -> Self {
        MoveRow {
            at: relative(moved.at, now),
            key: moved.key.to_string(),
            from: moved.from.to_string(),
            to: moved.to.as_ref().map_or_else(|| "any node".to_owned(), ToString::to_string),
            reason: moved.reason.as_str(),
            token: moved.token.map(|token| token.to_string()).unwrap_or_default(),
        }
    }
}

#[derive(Template)]
#[template(path = "batch.html")]
struct BatchPage {
    batch: BatchRow,
    finished: u64,
    total: u64,
    counted_all: bool,
    summary: String,
    partitions: Vec<PartitionRow>,
    next: Option<String>,
    moves: Vec<MoveRow>,
    more_moves: bool,
}

/// `/batches/{id}`: one batch, its partitions by state, a page of partitions, and the first
/// moves of partitions between nodes.
pub(crate) async fn show(
    State(state): State<AppState>,
    Path(batch): Path<String>,
    Query(query): Query<PageQuery>,
) -> PageResult {
    let id = id("batch", &batch)?;
    let store = state.backend.cluster();
    let record = store.batch_get(id).await?.ok_or_else(|| batch_not_found(id))?;
    let now = store.now().await?;
    let params = PartitionListParams {
        after: query.after()?,
        limit: PARTITIONS,
        ..PartitionListParams::new(id)
    };
    let shown = store.partition_list(params).await?;
    let (counts, counted_all) = count_states(&*store, id).await?;
    let moves = PartitionMovesParams { limit: MOVES, ..PartitionMovesParams::new(id) };
    let moves = store.partition_moves(moves).await?;
    let total: u64 = counts.iter().map(|(_, n)| n).sum();
    let finished: u64 = counts.iter().filter(|(state, _)| state.is_final()).map(|(_, n)| n).sum();
    let summary: Vec<String> =
        counts.iter().filter(|(_, n)| *n > 0).map(|(state, n)| format!("{n} {state}")).collect();
    page(&BatchPage {
        batch: BatchRow::new(&record),
        finished,
        total,
        counted_all,
        summary: summary.join(", "),
        partitions: rows(&shown.items, now),
        next: shown.next.map(|cursor| cursor.to_string()),
        moves: moves.items.iter().map(|moved| MoveRow::new(moved, now)).collect(),
        more_moves: moves.next.is_some(),
    })
}

/// How many partitions of the batch are in each state, counting at most [`COUNTED`];
/// answers whether every partition was counted.
async fn count_states(
    store: &dyn ClusterStore,
    batch: i64,
) -> baton::Result<(Vec<(PartitionState, u64)>, bool)> {
    let mut counts: Vec<(PartitionState, u64)> =
        PartitionState::ALL.iter().map(|s| (*s, 0)).collect();
    let mut after: Option<Cursor> = None;
    let mut seen = 0;
    while seen < COUNTED {
        let params = PartitionListParams { after, limit: 1000, ..PartitionListParams::new(batch) };
        let page = store.partition_list(params).await?;
        for partition in &page.items {
            if let Some(slot) = counts.iter_mut().find(|(state, _)| *state == partition.state) {
                slot.1 += 1;
            }
        }
        seen += page.items.len();
        match page.next {
            Some(next) => after = Some(next),
            None => return Ok((counts, true)),
        }
    }
    Ok((counts, false))
}

#[cfg(test)]
mod tests {
    use baton::core::cluster::{JsonText, PartitionKey};

    use super::*;

    fn partition(key: &str, state: PartitionState, progress: u64) -> Partition {
        Partition {
            id: 1,
            batch: 1,
            key: PartitionKey::new(key).unwrap(),
            params: JsonText::new("{}").unwrap(),
            transferable: true,
            state,
            node: None,
            token: None,
            checkpoint: None,
            result: None,
            attempts: 1,
            progress,
            created_at: StoreTime::from_millis(0),
            claimed_at: None,
            heartbeat_at: None,
            finished_at: None,
            error: None,
        }
    }

    fn bars(partitions: &[Partition]) -> Vec<(Option<u64>, u64)> {
        rows(partitions, StoreTime::from_millis(0)).iter().map(|r| (r.value, r.max)).collect()
    }

    #[test]
    fn running_partitions_are_not_full_when_none_completed() {
        let running: Vec<Partition> =
            (0..6).map(|i| partition(&format!("p{i}"), PartitionState::Claimed, 500)).collect();
        assert!(bars(&running).iter().all(|(value, _)| value.is_none()), "{:?}", bars(&running));
        let rows = rows(&running, StoreTime::from_millis(0));
        assert_eq!(rows[0].label, "500 units, total unknown");
    }

    #[test]
    fn bars_are_drawn_against_the_largest_completed_partition() {
        let partitions = [
            partition("done", PartitionState::Completed, 1000),
            partition("half", PartitionState::Claimed, 500),
            partition("beyond", PartitionState::Claimed, 1200),
            partition("idle", PartitionState::Pending, 0),
            partition("failed", PartitionState::Failed, 300),
        ];
        assert_eq!(
            bars(&partitions),
            [
                (Some(1000), 1000),
                (Some(500), 1000),
                (None, 1000),
                (Some(0), 1000),
                (Some(300), 1000)
            ]
        );
    }

    #[test]
    fn a_partition_without_progress_has_an_empty_bar() {
        let pending = [partition("p0", PartitionState::Pending, 0)];
        assert_eq!(bars(&pending), [(Some(0), 1)]);
    }
}
