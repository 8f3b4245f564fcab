//! Executions a node completed, counted as they complete and binned by the millisecond since
//! the node was told to start, so the parent can merge the nodes' rates.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Completions of one node.
#[derive(Debug, Default)]
pub(crate) struct Completions {
    started: Mutex<Option<Instant>>,
    total: AtomicU64,
    by_ms: Mutex<BTreeMap<u64, u64>>,
}

impl Completions {
    /// Starts the clock the completions are binned by.
    pub(crate) fn start(&self) {
        *self.started.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
    }

    /// Notes `count` executions completed just now.
    pub(crate) fn note(&self, count: u64) {
        if count == 0 {
            return;
        }
        self.total.fetch_add(count, Ordering::Relaxed);
        let started = *self.started.lock().unwrap_or_else(|p| p.into_inner());
        let offset = started.map_or(0, |at| at.elapsed().as_millis() as u64);
        *self.by_ms.lock().unwrap_or_else(|p| p.into_inner()).entry(offset).or_default() += count;
    }

    /// Completions so far.
    pub(crate) fn total(&self) -> u64 {
        self.total.load(Ordering::Relaxed)
    }

    /// (millisecond since the start, completions in it), ascending.
    pub(crate) fn histogram(&self) -> Vec<(u64, u64)> {
        let by_ms = self.by_ms.lock().unwrap_or_else(|p| p.into_inner());
        by_ms.iter().map(|(ms, count)| (*ms, *count)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_bins() {
        let completions = Completions::default();
        completions.start();
        completions.note(3);
        completions.note(0);
        completions.note(2);
        assert_eq!(completions.total(), 5);
        let binned: u64 = completions.histogram().iter().map(|(_, count)| count).sum();
        assert_eq!(binned, 5);
    }
}
