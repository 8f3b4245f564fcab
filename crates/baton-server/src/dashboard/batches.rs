//! The batches, newest first, and one batch's page with a progress bar per partition.

use askama::Template;
use axum::extract::{Path, State};
use baton::core::cluster::{
    ClusterStore, Partition, PartitionListParams, PartitionState, batch_not_found,
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
    /// The bar's value and maximum.
    pub value: u64,
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
/// usually alike), or against the most any partition of the page did when none completed.
/// A completed partition's bar is full.
fn rows(partitions: &[Partition], now: StoreTime) -> Vec<PartitionRow> {
    let completed = partitions.iter().filter(|p| p.state == PartitionState::Completed);
    let reference = completed
        .map(|p| p.progress)
        .max()
        .or_else(|| partitions.iter().map(|p| p.progress).max())
        .unwrap_or(0);
    partitions
        .iter()
        .map(|p| {
            let done = p.state == PartitionState::Completed;
            let max = if done { p.progress.max(1) } else { reference.max(p.progress).max(1) };
            PartitionRow {
                key: p.key.to_string(),
                state: p.state.as_str(),
                node: p.node.as_ref().map(ToString::to_string).unwrap_or_default(),
                value: if done { max } else { p.progress },
                max,
                label: format!("{} units", p.progress),
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
}

/// `/batches/{id}`: one batch, its partitions by state, and a page of partitions.
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
