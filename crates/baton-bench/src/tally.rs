//! Store calls of this process, by kind: how many, how long they took, what they carried, and
//! the SQL statements each kind caused.
//!
//! The wrappers in `tally_jobs` and `tally_leases` run every store call inside a `tracing` span
//! named after the call, with target [`TARGET`]. The statement counter (see `statements`)
//! attributes each sqlx statement event to the outermost such span it happens in: sqlx emits
//! the event in the calling task on PostgreSQL, and on SQLite its worker thread enters the
//! caller's span first. Statements outside every store call are tallied under [`OUTSIDE`].

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tracing::Instrument;

/// The target of the spans around store calls.
pub(crate) const TARGET: &str = "baton_bench::store_call";
/// The tally entry of statements made outside every store call.
pub(crate) const OUTSIDE: &str = "outside_store_calls";

static TALLY: Mutex<BTreeMap<&'static str, Entry>> = Mutex::new(BTreeMap::new());

/// What one kind of call cost, cumulatively.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Entry {
    /// Calls that returned.
    pub(crate) calls: u64,
    /// SQL statements counted inside them.
    pub(crate) statements: u64,
    /// What they carried: fires recorded, executions claimed or completed.
    pub(crate) items: u64,
    /// Time spent in them, summed.
    pub(crate) busy: Duration,
    /// Calls that failed.
    pub(crate) errors: u64,
}

impl Entry {
    fn minus(&self, earlier: &Entry) -> Entry {
        Entry {
            calls: self.calls.saturating_sub(earlier.calls),
            statements: self.statements.saturating_sub(earlier.statements),
            items: self.items.saturating_sub(earlier.items),
            busy: self.busy.saturating_sub(earlier.busy),
            errors: self.errors.saturating_sub(earlier.errors),
        }
    }

    fn add(&mut self, other: &Entry) {
        self.calls += other.calls;
        self.statements += other.statements;
        self.items += other.items;
        self.busy += other.busy;
        self.errors += other.errors;
    }
}

/// A snapshot of the tally, or the difference of two, keyed by call name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    /// One entry per kind of call seen.
    pub(crate) entries: BTreeMap<String, Entry>,
}

impl Tally {
    /// The tally of this process so far.
    pub(crate) fn now() -> Tally {
        let entries = lock().iter().map(|(name, entry)| (name.to_string(), *entry)).collect();
        Tally { entries }
    }

    /// What happened between `earlier` and this snapshot.
    pub(crate) fn since(&self, earlier: &Tally) -> Tally {
        let entries = self
            .entries
            .iter()
            .map(|(name, entry)| {
                let before = earlier.entries.get(name).copied().unwrap_or_default();
                (name.clone(), entry.minus(&before))
            })
            .filter(|(_, entry)| *entry != Entry::default())
            .collect();
        Tally { entries }
    }

    /// Adds another process's tally to this one.
    pub(crate) fn merge(&mut self, other: &Tally) {
        for (name, entry) in &other.entries {
            self.entries.entry(name.clone()).or_default().add(entry);
        }
    }

    /// The entry of one kind of call (zero when it was not seen).
    pub(crate) fn get(&self, name: &str) -> Entry {
        self.entries.get(name).copied().unwrap_or_default()
    }

    /// Statements counted in all, inside store calls or not.
    pub(crate) fn statements(&self) -> u64 {
        self.entries.values().map(|entry| entry.statements).sum()
    }

    /// Store calls made in all.
    pub(crate) fn calls(&self) -> u64 {
        self.entries.values().map(|entry| entry.calls).sum()
    }
}

fn lock() -> std::sync::MutexGuard<'static, BTreeMap<&'static str, Entry>> {
    TALLY.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Counts one statement for the call `name` (or [`OUTSIDE`] when it ran outside every call).
pub(crate) fn note_statement(name: Option<&'static str>) {
    lock().entry(name.unwrap_or(OUTSIDE)).or_default().statements += 1;
}

/// Adds `items` to what the call `name` carried.
pub(crate) fn note_items(name: &'static str, items: u64) {
    lock().entry(name).or_default().items += items;
}

/// Runs one store call inside `span` (named `name`, target [`TARGET`]) and tallies it.
pub(crate) async fn run<T, E>(
    name: &'static str,
    span: tracing::Span,
    call: impl Future<Output = Result<T, E>>,
) -> Result<T, E> {
    let began = Instant::now();
    let outcome = call.instrument(span).await;
    let busy = began.elapsed();
    let mut tally = lock();
    let entry = tally.entry(name).or_default();
    entry.calls += 1;
    entry.busy += busy;
    entry.errors += u64::from(outcome.is_err());
    outcome
}

/// Runs the store call `$call` tallied under the literal name `$name`.
macro_rules! tallied {
    ($name:literal, $call:expr) => {
        $crate::tally::run(
            $name,
            tracing::info_span!(target: $crate::tally::TARGET, $name),
            $call,
        )
        .await
    };
}
pub(crate) use tallied;

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(calls: u64, statements: u64) -> Entry {
        Entry { calls, statements, ..Entry::default() }
    }

    #[test]
    fn differences_and_merges() {
        let mut earlier = Tally::default();
        earlier.entries.insert("claim".into(), entry(2, 2));
        let mut later = earlier.clone();
        later.entries.insert("claim".into(), entry(5, 6));
        later.entries.insert("renew_all".into(), entry(1, 1));
        let delta = later.since(&earlier);
        assert_eq!(delta.get("claim"), entry(3, 4));
        assert_eq!(delta.get("renew_all"), entry(1, 1));
        assert_eq!((delta.calls(), delta.statements()), (4, 5));
        let mut merged = delta.clone();
        merged.merge(&delta);
        assert_eq!(merged.get("claim"), entry(6, 8));
        assert!(later.since(&later).entries.is_empty());
    }
}
