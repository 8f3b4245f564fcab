//! Timed measurement windows: operations recorded with their latency and completion time.

use std::time::{Duration, Instant};

use tokio::task::JoinHandle;

use crate::report::{self, Latency};

/// What one timed operation was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OpKind {
    /// A floor update with its commit.
    Update,
    /// A lease acquisition (or an attempt, when racing).
    Acquire,
    /// A lease renewal.
    Renew,
    /// A lease release.
    Release,
}

impl OpKind {
    /// The name printed in the report.
    pub(crate) fn label(self) -> &'static str {
        match self {
            OpKind::Update => "update",
            OpKind::Acquire => "acquire",
            OpKind::Renew => "renew",
            OpKind::Release => "release",
        }
    }
}

/// One completed operation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sample {
    kind: OpKind,
    /// When it completed, from the start of the window.
    done_at: Duration,
    latency: Duration,
}

/// A measurement window shared by the workers of one run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Window {
    start: Instant,
    length: Duration,
}

impl Window {
    /// Opens a window of `length` now.
    pub(crate) fn open(length: Duration) -> Self {
        Window { start: Instant::now(), length }
    }

    /// Whether workers should start another operation.
    pub(crate) fn is_open(&self) -> bool {
        self.start.elapsed() < self.length
    }

    /// Records an operation of `kind` that began at `began` and has just completed.
    pub(crate) fn sample(&self, kind: OpKind, began: Instant) -> Sample {
        let now = Instant::now();
        Sample { kind, done_at: now - self.start, latency: now - began }
    }
}

/// Every sample of one run, all workers together, window by window.
#[derive(Debug, Clone, Default)]
pub(crate) struct Samples {
    windows: Vec<(Vec<Sample>, Duration)>,
}

/// The rate is the median of the rates over this many equal slices of all the windows.
const SLICES: usize = 10;

impl Samples {
    /// Gathers the samples of a window of `length`.
    pub(crate) fn new(parts: Vec<Vec<Sample>>, length: Duration) -> Self {
        Samples { windows: vec![(parts.into_iter().flatten().collect(), length)] }
    }

    fn matching<'a>(&'a self, kinds: &'a [OpKind]) -> impl Iterator<Item = &'a Sample> + 'a {
        self.windows.iter().flat_map(|(samples, _)| samples).filter(|s| kinds.contains(&s.kind))
    }

    /// Number of operations of the given kinds, including any that ended after their window.
    pub(crate) fn count(&self, kinds: &[OpKind]) -> u64 {
        self.matching(kinds).count() as u64
    }

    /// Operations of the given kinds per second: the median over equal slices of the windows.
    pub(crate) fn rate(&self, kinds: &[OpKind]) -> f64 {
        let per_window = (SLICES / self.windows.len().max(1)).max(1) as u32;
        let rates = self.windows.iter().flat_map(|(samples, length)| {
            let done = samples.iter().filter(|s| kinds.contains(&s.kind)).map(|s| s.done_at);
            report::slice_rates(done, *length, per_window)
        });
        report::median(rates.collect())
    }

    /// Latency percentiles of the operations of the given kinds.
    pub(crate) fn latency(&self, kinds: &[OpKind]) -> Option<Latency> {
        Latency::of(self.matching(kinds).map(|s| s.latency).collect())
    }
}

/// A timed run with the statements and commits it caused.
#[derive(Debug, Clone, Default)]
pub(crate) struct Measured {
    /// The operations.
    pub(crate) samples: Samples,
    /// Statements counted while the operations ran.
    pub(crate) statements: u64,
    /// Commits the store counted for the run.
    pub(crate) commits: u64,
}

impl Measured {
    /// Adds the windows and counts of another run of the same measurement.
    pub(crate) fn absorb(&mut self, other: Measured) {
        self.samples.windows.extend(other.samples.windows);
        self.statements += other.statements;
        self.commits += other.commits;
    }
}

/// Waits for every worker; the first failure fails the run.
pub(crate) async fn join_all<T>(
    workers: Vec<JoinHandle<anyhow::Result<T>>>,
) -> anyhow::Result<Vec<T>> {
    let mut results = Vec::with_capacity(workers.len());
    let mut first_error = None;
    for worker in workers {
        match worker.await {
            Ok(Ok(result)) => results.push(result),
            Ok(Err(err)) => {
                first_error.get_or_insert(err);
            }
            Err(err) => {
                first_error.get_or_insert(anyhow::Error::new(err));
            }
        }
    }
    match first_error {
        Some(err) => Err(err),
        None => Ok(results),
    }
}
