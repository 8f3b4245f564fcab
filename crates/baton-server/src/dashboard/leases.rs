//! A lease's row with its timeline of leader terms, and the lease page.

use askama::Template;
use axum::extract::{Path, State};
use baton::{Lease, LeaseName, LeaseStore, Result, StoreTime};

use super::chart;
use super::format::{instant, relative};
use super::timeline::{Term, Timeline};
use super::{PageResult, page};
use crate::api::lease_not_found;
use crate::params::name;
use crate::state::AppState;
use crate::tail::{LeaderChanges, ceiling, newest};

/// How many leader changes a lease's timeline shows.
const TERMS: u32 = 20;
/// How many on the lease page.
const PAGE_TERMS: u32 = 100;

/// How a lease's terms are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Picture {
    /// A thin bar, for a table's row.
    Strip,
    /// Along a time axis, with a legend of holders.
    Full,
}

/// A lease, its holder and its recent terms.
pub(crate) struct LeaseRow {
    pub name: String,
    pub state: &'static str,
    pub holder: String,
    pub token: String,
    pub expires: String,
    pub terms: Vec<Term>,
    /// The terms in time, as an inline SVG; `None` when none is recorded.
    pub picture: Option<String>,
    /// Whether older changes exist than the terms shown.
    pub older_terms: bool,
}

impl LeaseRow {
    /// Reads the newest `count` leader changes of the lease with ids below `ceiling`, the id
    /// above every change recorded, and draws them as `picture` says.
    pub async fn read(
        store: &dyn LeaseStore,
        lease: &Lease,
        (ceiling, count): (Option<i64>, u32),
        picture: Picture,
        now: StoreTime,
    ) -> Result<Self> {
        let listing = LeaderChanges { store, lease: Some(lease.name.clone()) };
        let mut changes = newest(&listing, ceiling, count + 1).await?;
        let older_terms = changes.len() > count as usize;
        changes.truncate(count as usize);
        changes.reverse();
        let holder = lease.holder_at(now);
        let timeline = Timeline::new(&changes, lease, now);
        Ok(LeaseRow {
            name: lease.name.to_string(),
            state: lease.state_at(now),
            holder: holder.map(ToString::to_string).unwrap_or_default(),
            token: lease.token.to_string(),
            expires: match holder {
                Some(_) => relative(lease.expires_at, now),
                None => instant(lease.expires_at),
            },
            picture: match picture {
                Picture::Strip => chart::strip(&timeline, lease.name.as_str(), now),
                Picture::Full => chart::terms(&timeline, lease.name.as_str(), now),
            },
            terms: timeline.terms,
            older_terms,
        })
    }

    /// How many changes a row on the overview shows.
    pub const OVERVIEW_TERMS: u32 = TERMS;
}

#[derive(Template)]
#[template(path = "lease.html")]
struct LeasePage {
    lease: LeaseRow,
}

/// `/leases/{name}`: the lease page with its latest terms.
pub(crate) async fn show(State(state): State<AppState>, Path(lease): Path<String>) -> PageResult {
    let lease: LeaseName = name(&lease)?;
    let store = state.backend.leases();
    let now = store.now().await?;
    let record = store.get(&lease).await?.ok_or_else(|| lease_not_found(&lease))?;
    let all_changes = LeaderChanges { store: &*store, lease: None };
    let changes_ceiling = ceiling(&all_changes, &state.hints.history).await?;
    let window = (changes_ceiling, PAGE_TERMS);
    let row = LeaseRow::read(&*store, &record, window, Picture::Full, now).await?;
    page(&LeasePage { lease: row })
}
