//! Reading the newest records of a listing that the stores page oldest first.
//!
//! Every listing pages by id, ascending, after a cursor. To show the newest records without
//! reading the whole history, [`ceiling`] finds the greatest id (a galloping search of
//! one-row pages, from where the last search ended), then [`newest`] reads the window of ids
//! just below it, widening the window until it holds enough selected records and narrowing it
//! when it holds more than one page: a few short indexed reads whatever the size of the
//! history.

use std::sync::atomic::{AtomicI64, Ordering};

use baton::core::cluster::{BatchJob, BatchListParams, ClusterStore};
use baton::core::job::ExecutionListParams;
use baton::core::schedule::JobName;
use baton::core::{Execution, ExecutionStatus, JobStore, LeaseStore};
use baton::{Cursor, HistoryParams, LeaderChange, LeaseName, Page, Result};

/// The most records one window read returns.
const WINDOW: u32 = 1000;
/// How much wider each window is than the last while it selects too few records.
const GROWTH: i64 = 4;

/// A listing paged by ascending id.
pub(crate) trait Listing {
    /// The record listed.
    type Item;

    /// The record's id.
    fn id(item: &Self::Item) -> i64;

    /// A page of every record, whatever the filters (to find the greatest id).
    async fn all(&self, after: Option<Cursor>, limit: u32) -> Result<Page<Self::Item>>;

    /// A page of the records the filters select.
    async fn selected(&self, after: Option<Cursor>, limit: u32) -> Result<Page<Self::Item>>;
}

/// The greatest id a listing was last seen to hold, to start the next search from.
#[derive(Debug, Default)]
pub(crate) struct Hint(AtomicI64);

/// The id above every record of the listing (whatever its filters), or `None` when it is
/// empty: its greatest id plus one. Searches up from the id `hint` last found, so that a
/// listing that grew little since costs two one-row reads.
pub(crate) async fn ceiling<L: Listing>(listing: &L, hint: &Hint) -> Result<Option<i64>> {
    let last = hint.0.load(Ordering::Relaxed);
    let from_hint = match last {
        0 => None,
        last => first_above(listing, last - 1).await?,
    };
    let start = match from_hint {
        Some(id) => id,
        None => match listing.all(None, 1).await?.items.first() {
            Some(first) => L::id(first),
            None => return Ok(None),
        },
    };
    let top = greatest_from(listing, start).await?;
    hint.0.store(top, Ordering::Relaxed);
    Ok(Some(top + 1))
}

/// The newest `count` selected records (1 to 1000) with ids below `ceiling`, newest first;
/// none when `ceiling` is `None` (an empty listing).
pub(crate) async fn newest<L: Listing>(
    listing: &L,
    ceiling: Option<i64>,
    count: u32,
) -> Result<Vec<L::Item>> {
    let Some(top) = ceiling.map(|ceiling| ceiling.saturating_sub(1)) else {
        return Ok(Vec::new());
    };
    let wanted = count.clamp(1, WINDOW) as usize;
    // Spans known to select too few records (read whole) and too many (over one page).
    let mut too_few: i64 = 0;
    let mut too_many: Option<i64> = None;
    let mut span = i64::from(count.max(1));
    loop {
        let floor = top.saturating_sub(span).max(0);
        let page = listing.selected(Some(Cursor::after(floor)), WINDOW).await?;
        let beyond = page.items.last().is_some_and(|item| L::id(item) > top);
        if page.next.is_some() && !beyond {
            too_many = Some(span);
        } else {
            let mut items: Vec<L::Item> =
                page.items.into_iter().filter(|item| L::id(item) <= top).collect();
            if items.len() >= wanted || floor == 0 {
                items.reverse();
                items.truncate(wanted);
                return Ok(items);
            }
            too_few = span;
        }
        span = match too_many {
            None => span.saturating_mul(GROWTH),
            Some(over) => too_few + (over - too_few) / 2,
        };
        if too_many.is_some_and(|over| over - too_few <= 1) {
            // Ids are unique, so a span one wider than one selecting too few selects at most
            // one more record: only a listing that breaks its own order gets here.
            return Err(baton::Error::new(
                baton::ErrorKind::Internal,
                "the listing does not page by unique ascending ids",
            ));
        }
    }
}

/// The first id above `after`, if any.
async fn first_above<L: Listing>(listing: &L, after: i64) -> Result<Option<i64>> {
    let page = listing.all(Some(Cursor::after(after)), 1).await?;
    Ok(page.items.first().map(L::id))
}

/// The greatest id of the listing, searching up from `known`, an id it holds: a galloping
/// search, then a bisection, of one-row reads.
async fn greatest_from<L: Listing>(listing: &L, mut known: i64) -> Result<i64> {
    // No record has an id above `bound`, once one is known.
    let mut bound: Option<i64> = None;
    let mut step: i64 = 0;
    loop {
        if bound == Some(known) {
            return Ok(known);
        }
        let probe = match bound {
            None => known.saturating_add(step),
            Some(bound) => known + (bound - known) / 2,
        };
        match first_above(listing, probe).await? {
            Some(id) => {
                known = id;
                step = step.saturating_mul(2).max(1);
            }
            None => bound = Some(probe),
        }
    }
}

/// The executions of a job store, optionally of one job and in one status.
pub(crate) struct Executions<'a> {
    /// The store.
    pub store: &'a dyn JobStore,
    /// Only this job's executions.
    pub job: Option<JobName>,
    /// Only executions in this status.
    pub status: Option<ExecutionStatus>,
}

impl Listing for Executions<'_> {
    type Item = Execution;

    fn id(item: &Execution) -> i64 {
        item.id
    }

    async fn all(&self, after: Option<Cursor>, limit: u32) -> Result<Page<Execution>> {
        let params = ExecutionListParams { after, limit, ..ExecutionListParams::default() };
        self.store.execution_list(params).await
    }

    async fn selected(&self, after: Option<Cursor>, limit: u32) -> Result<Page<Execution>> {
        let params = ExecutionListParams {
            job: self.job.clone(),
            status: self.status,
            after,
            limit,
            ..ExecutionListParams::default()
        };
        self.store.execution_list(params).await
    }
}

/// The leader-change history of a lease store, optionally of one lease.
pub(crate) struct LeaderChanges<'a> {
    /// The store.
    pub store: &'a dyn LeaseStore,
    /// Only this lease's changes.
    pub lease: Option<LeaseName>,
}

impl Listing for LeaderChanges<'_> {
    type Item = LeaderChange;

    fn id(item: &LeaderChange) -> i64 {
        item.id
    }

    async fn all(&self, after: Option<Cursor>, limit: u32) -> Result<Page<LeaderChange>> {
        self.store.history(HistoryParams { lease: None, after, limit }).await
    }

    async fn selected(&self, after: Option<Cursor>, limit: u32) -> Result<Page<LeaderChange>> {
        self.store.history(HistoryParams { lease: self.lease.clone(), after, limit }).await
    }
}

/// The batches of a cluster store.
pub(crate) struct Batches<'a> {
    /// The store.
    pub store: &'a dyn ClusterStore,
}

impl Listing for Batches<'_> {
    type Item = BatchJob;

    fn id(item: &BatchJob) -> i64 {
        item.id
    }

    async fn all(&self, after: Option<Cursor>, limit: u32) -> Result<Page<BatchJob>> {
        self.selected(after, limit).await
    }

    async fn selected(&self, after: Option<Cursor>, limit: u32) -> Result<Page<BatchJob>> {
        self.store.batch_list(BatchListParams { after, limit, ..BatchListParams::default() }).await
    }
}
