//! The history of one cell of the fault matrix: every line its node processes printed, every
//! fault inflicted and what the ledgers' checkers found, on one monotonic clock from the
//! cell's start.
//!
//! A cell runs inside [`History::scope`]; the testkit records into the history of the scope it
//! runs in, if any: [`EventedProcess`](crate::evented::EventedProcess) each line its process
//! prints and each signal sent to it, the fault proxy each change of mode, a store each crash,
//! restart and freeze, the ledgers each check. Outside a scope nothing is recorded.
//!
//! The node binaries print `INVOKE <id>` before each write to the store and `<OUTCOME> <id> …`
//! after it, so that each write is an [`Operation`] (invoked, then ok, failed or unknown, with
//! its token); [`Summary`] counts them and checks the tokens the nodes announced, and
//! [`History::excerpt`] is what a red cell prints.

mod check;
mod excerpt;

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

pub use check::{Fenced, Operation, Outcome, Summary};

/// The process name under which faults are recorded.
pub const NEMESIS: &str = "nemesis";

/// One line of a history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// When the test saw it, from the cell's start.
    pub at: Duration,
    /// The process that printed it, or [`NEMESIS`].
    pub process: String,
    /// The line's first word (`INVOKE`, `WROTE`, `ACQUIRED`, …; a fault's name).
    pub kind: String,
    /// The rest of the line.
    pub detail: String,
}

/// What one cell recorded; clones share it.
#[derive(Debug, Clone)]
pub struct History {
    started: Instant,
    shared: Arc<Mutex<Recorded>>,
}

#[derive(Debug, Default)]
struct Recorded {
    records: Vec<Record>,
    seed: Option<u64>,
    /// Each ledger's last check.
    fenced: BTreeMap<String, Fenced>,
}

tokio::task_local! {
    static CURRENT: History;
}

impl Default for History {
    fn default() -> Self {
        History { started: Instant::now(), shared: Arc::default() }
    }
}

impl History {
    /// An empty history whose clock starts now.
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs `future` with this history as the one the testkit records into.
    pub fn scope<F: Future>(&self, future: F) -> impl Future<Output = F::Output> + use<F> {
        CURRENT.scope(self.clone(), future)
    }

    /// The history of the scope the caller runs in, if any.
    pub fn current() -> Option<History> {
        CURRENT.try_with(Clone::clone).ok()
    }

    fn recorded(&self) -> MutexGuard<'_, Recorded> {
        self.shared.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Records a line `kind detail` of `process`, seen at `at`.
    pub fn push(&self, process: &str, kind: &str, detail: &str, at: Instant) {
        let record = Record {
            at: at.saturating_duration_since(self.started),
            process: process.to_string(),
            kind: kind.to_string(),
            detail: detail.to_string(),
        };
        self.recorded().records.push(record);
    }

    /// Every record, in the order seen.
    pub fn records(&self) -> Vec<Record> {
        let mut records = self.recorded().records.clone();
        records.sort_by_key(|record| record.at);
        records
    }

    /// The seed of the cell's random choices, if it made any.
    pub fn seed(&self) -> Option<u64> {
        self.recorded().seed
    }

    /// What the ledgers' last checks found, summed over ledgers.
    pub fn fenced(&self) -> Fenced {
        self.recorded().fenced.values().copied().sum()
    }

    /// The summary of the operations and announcements recorded so far.
    pub fn summary(&self) -> Summary {
        Summary::of(&self.records(), self.fenced())
    }
}

/// Records a fault, `action` on `target`, in the current history.
pub fn nemesis(action: &str, target: &str) {
    if let Some(history) = History::current() {
        history.push(NEMESIS, action, target, Instant::now());
    }
}

/// Records the seed of the current cell's random choices.
pub fn seed(seed: u64) {
    if let Some(history) = History::current() {
        history.recorded().seed = Some(seed);
    }
}

/// Records what the check of ledger `name` found; a later check of the same ledger replaces it.
pub fn fenced(name: &str, found: Fenced) {
    if let Some(history) = History::current() {
        history.push("checker", "CHECKED", &format!("{name}: {found}"), Instant::now());
        history.recorded().fenced.insert(name.to_string(), found);
    }
}

/// The last word of a line's detail as a token, if it is one: the node binaries print the
/// token a line is about last.
pub(crate) fn trailing_token(detail: &str) -> Option<u64> {
    detail.split_whitespace().last()?.parse().ok()
}
