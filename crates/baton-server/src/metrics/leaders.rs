//! Lease metrics: the current leader of every lease, leader changes, and failover durations.
//!
//! Each scrape reads the leader-change history written since the previous scrape (the first
//! scrape starts at the end of the history), then the lease records. A failover is a leader
//! change that replaced a previous term (reason `expired_takeover`, `handover` or
//! `forced_release`); its duration is the time from the end of the previous term to the
//! change: `at` of the change minus the previous term's `expires_at` as the last scrape read
//! it (a release sets `expires_at` to the instant of the release; an expired lease keeps its
//! expiry). When the previous holder renewed after that read, its term really ended later,
//! so the duration is an upper bound, off by at most the time between that scrape and the
//! holder's last renewal; it is exact when the scrape read the lease free. A negative gap (a
//! lease released before the expiry last read) counts as zero. A term that began and ended
//! between two scrapes has no end on record, so the change after it is not measured.

use std::collections::{BTreeMap, HashMap};

use baton::core::lease::ChangeReason;
use baton::{Cursor, HistoryParams, LeaderChange, Lease, LeaseStore, Result, StoreTime};

use super::exposition::{Exposition, Kind};
use crate::tail::{Hint, LeaderChanges, ceiling};

/// The most history pages one scrape reads; the rest waits for the next scrape.
const MAX_PAGES: usize = 10;
/// Records per history page.
const PAGE: u32 = 1000;

/// The term of a lease as far as the scrapes have seen it.
#[derive(Debug, Clone, Copy)]
struct Term {
    token: u64,
    /// The expiry last read while this term was current; `None` until a scrape reads it.
    end: Option<StoreTime>,
}

/// What the lease metrics remember between scrapes.
#[derive(Debug, Default)]
pub(crate) struct LeaderMemory {
    /// Where the next history read starts; `None` before the first scrape.
    cursor: Option<Cursor>,
    /// Leader changes seen since the first scrape, by lease and reason.
    changes: BTreeMap<(String, &'static str), u64>,
    /// The latest term seen of every lease.
    terms: HashMap<String, Term>,
    /// The latest failover duration measured for every lease, in seconds.
    failovers: BTreeMap<String, f64>,
}

impl LeaderMemory {
    /// Reads the new history and the lease records, and renders the lease metrics.
    pub async fn collect(&mut self, store: &dyn LeaseStore, out: &mut Exposition) -> Result<()> {
        self.read_history(store).await?;
        let now = store.now().await?;
        let leases = store.list().await?;
        for lease in &leases {
            self.observe(lease);
        }
        self.render(&leases, now, out);
        Ok(())
    }

    async fn read_history(&mut self, store: &dyn LeaseStore) -> Result<()> {
        let Some(mut cursor) = self.cursor else {
            let listing = LeaderChanges { store, lease: None };
            let top = ceiling(&listing, &Hint::default()).await?.map_or(0, |above| above - 1);
            self.cursor = Some(Cursor::after(top));
            return Ok(());
        };
        for _ in 0..MAX_PAGES {
            let params = HistoryParams { lease: None, after: Some(cursor), limit: PAGE };
            let page = store.history(params).await?;
            for change in &page.items {
                self.on_change(change);
                cursor = Cursor::after(change.id);
            }
            self.cursor = Some(cursor);
            if page.next.is_none() {
                break;
            }
        }
        Ok(())
    }

    fn on_change(&mut self, change: &LeaderChange) {
        let lease = change.lease.to_string();
        *self.changes.entry((lease.clone(), change.reason.as_str())).or_default() += 1;
        let token = change.token.get();
        match self.terms.get(&lease) {
            Some(term) if token <= term.token => return,
            Some(term) if change.reason != ChangeReason::Fresh => {
                if let Some(end) = term.end {
                    let gap = change.at.saturating_since(end).as_secs_f64();
                    self.failovers.insert(lease.clone(), gap);
                }
            }
            _ => {}
        }
        self.terms.insert(lease, Term { token, end: None });
    }

    fn observe(&mut self, lease: &Lease) {
        let token = lease.token.get();
        let term = self.terms.entry(lease.name.to_string()).or_insert(Term { token, end: None });
        if token >= term.token {
            *term = Term { token, end: Some(lease.expires_at) };
        }
    }

    fn render(&self, leases: &[Lease], now: StoreTime, out: &mut Exposition) {
        out.family(
            "baton_lease_leader",
            Kind::Gauge,
            "1 for the current holder of each held lease, with its fencing token.",
        );
        for lease in leases {
            if let Some(holder) = lease.holder_at(now) {
                let token = lease.token.to_string();
                let labels = [
                    ("lease", lease.name.as_str()),
                    ("holder", holder.as_str()),
                    ("token", &token),
                ];
                out.sample("baton_lease_leader", &labels, 1.0);
            }
        }
        out.family(
            "baton_lease_leaderless_seconds",
            Kind::Gauge,
            "How long each lease has had no live holder (0 while held), on the store's clock.",
        );
        for lease in leases {
            let idle = match lease.holder_at(now) {
                Some(_) => 0.0,
                None => now.saturating_since(lease.expires_at).as_secs_f64(),
            };
            out.sample("baton_lease_leaderless_seconds", &[("lease", lease.name.as_str())], idle);
        }
        out.family(
            "baton_leader_changes_total",
            Kind::Counter,
            "Leader changes recorded since this server's first scrape, by lease and reason.",
        );
        for ((lease, reason), count) in &self.changes {
            let labels = [("lease", lease.as_str()), ("reason", *reason)];
            out.sample("baton_leader_changes_total", &labels, *count as f64);
        }
        out.family(
            "baton_lease_failover_seconds",
            Kind::Gauge,
            "The latest failover of each lease: from the end of the previous term to the new one.",
        );
        for (lease, seconds) in &self.failovers {
            out.sample("baton_lease_failover_seconds", &[("lease", lease.as_str())], *seconds);
        }
    }
}
