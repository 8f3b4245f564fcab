//! Lease metrics: the current leader of every lease, leader changes, and failover durations.
//!
//! Each scrape reads the leader-change history written since the previous scrape (the first
//! scrape starts at the end of the history), then the lease records. A failover is a leader
//! change that replaced a previous term (reason `expired_takeover`, `handover` or
//! `forced_release`); its duration comes from the record: the change's `at` minus the end of
//! the previous term stored with it ([`LeaderChange::failover`]: the previous holder's last
//! renewal when its lease expired, the release when it was released), both on the store's
//! clock. A change recorded before stores kept the previous term's end is counted but not
//! measured.

use std::collections::BTreeMap;

use baton::{Cursor, HistoryParams, LeaderChange, Lease, LeaseStore, Result, StoreTime};

use super::exposition::{Exposition, Kind};
use super::histogram::Histogram;
use crate::tail::{Hint, LeaderChanges, ceiling};

/// The most history pages one scrape reads; the rest waits for the next scrape.
const MAX_PAGES: usize = 10;
/// Records per history page.
const PAGE: u32 = 1000;

/// Bucket bounds of failover durations, in seconds: a handover takes milliseconds, a crash
/// about the TTL plus the retry period (11 s by default).
const FAILOVER_BUCKETS: &[f64] =
    &[0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0];

/// What the lease metrics remember between scrapes.
#[derive(Debug, Default)]
pub(crate) struct LeaderMemory {
    /// Where the next history read starts; `None` before the first scrape.
    cursor: Option<Cursor>,
    /// Leader changes seen since the first scrape, by lease and reason.
    changes: BTreeMap<(String, &'static str), u64>,
    /// The failovers of every lease measured since the first scrape, in seconds.
    failovers: BTreeMap<String, Histogram>,
}

impl LeaderMemory {
    /// Reads the new history and the lease records, and renders the lease metrics.
    pub async fn collect(&mut self, store: &dyn LeaseStore, out: &mut Exposition) -> Result<()> {
        self.read_history(store).await?;
        let now = store.now().await?;
        let leases = store.list().await?;
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
        if let Some(failover) = change.failover() {
            let histogram =
                self.failovers.entry(lease).or_insert_with(|| Histogram::new(FAILOVER_BUCKETS));
            histogram.observe(failover.as_secs_f64());
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
            Kind::Histogram,
            "Failovers recorded since this server's first scrape, by lease: from the end of the \
             previous term (last renewal, or release) to the new term's start, store clock.",
        );
        for (lease, failovers) in &self.failovers {
            failovers.render(out, "baton_lease_failover_seconds", &[("lease", lease.as_str())]);
        }
    }
}
