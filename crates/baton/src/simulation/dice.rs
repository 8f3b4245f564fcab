//! The seeded source of every choice a simulated run makes.

use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One generator shared by everything in a run; the order of draws is the order in which the
/// single-threaded runtime runs its tasks, so a seed always draws the same numbers.
#[derive(Debug, Clone)]
pub(super) struct Dice(Arc<Mutex<fastrand::Rng>>);

impl Dice {
    pub(super) fn new(seed: u64) -> Self {
        Dice(Arc::new(Mutex::new(fastrand::Rng::with_seed(seed))))
    }

    fn rng(&self) -> std::sync::MutexGuard<'_, fastrand::Rng> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A number in `range`.
    pub(super) fn range(&self, range: std::ops::Range<u64>) -> u64 {
        self.rng().u64(range)
    }

    /// True with probability `share`.
    pub(super) fn chance(&self, share: f64) -> bool {
        self.rng().f64() < share
    }

    /// A whole number of milliseconds in `range`.
    pub(super) fn millis(&self, range: std::ops::Range<u64>) -> Duration {
        Duration::from_millis(self.range(range))
    }

    /// One of `items`.
    pub(super) fn pick<T: Copy>(&self, items: &[T]) -> T {
        let index = self.range(0..items.len() as u64);
        items[usize::try_from(index).expect("an index")]
    }
}
