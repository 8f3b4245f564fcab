//! The executions scheduled in the last hour, for the overview's picture: read from the
//! newest down in windows of ids, a bounded amount whatever the rate.

use baton::core::{Execution, JobStore};
use baton::{Result, StoreTime};

use crate::tail::{Executions, newest};

/// Executions per window read: half a page of the listing, so that a window is found in one
/// read when newer executions lie above it.
const WINDOW: u32 = 500;
/// The most windows read: past 3,000 executions an hour, only the newest are counted.
const WINDOWS: usize = 6;

/// The executions scheduled since an instant, as far as they were read.
pub(crate) struct LastHour {
    /// The executions read that were scheduled since the instant, newest first.
    pub executions: Vec<Execution>,
    /// When the reading stopped before the instant: from when on it counted every execution
    /// (the oldest read's recording); `None` when it counted them all.
    pub counted_from: Option<StoreTime>,
}

/// The executions with ids below `ceiling` scheduled since `since`: windows of the newest
/// are read until one reaches an execution recorded before `since`, or the listing's start,
/// at most [`WINDOWS`] of them.
pub(crate) async fn last_hour(
    store: &dyn JobStore,
    ceiling: Option<i64>,
    since: StoreTime,
) -> Result<LastHour> {
    let all = Executions { store, job: None, status: None };
    let mut below = ceiling;
    let mut executions = Vec::new();
    let mut counted_from = None;
    for _ in 0..WINDOWS {
        let window = newest(&all, below, WINDOW).await?;
        let Some(oldest) = window.last() else { break };
        let (oldest_id, recorded) = (oldest.id, oldest.created_at);
        let reached = window.len() < WINDOW as usize || recorded < since;
        executions.extend(window.into_iter().filter(|e| e.scheduled_at >= since));
        if reached {
            return Ok(LastHour { executions, counted_from: None });
        }
        below = Some(oldest_id);
        counted_from = Some(recorded);
    }
    Ok(LastHour { executions, counted_from })
}
