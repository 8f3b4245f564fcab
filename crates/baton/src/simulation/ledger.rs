//! The resources the simulated work writes to, one per key (the lease, each job), fenced by
//! token as a fenced sink is: a write under a token lower than one the resource already took is
//! refused.

use std::collections::BTreeMap;
use std::sync::Mutex;

use crate::planted::{Bug, planted};

#[derive(Debug, Default)]
pub(super) struct Ledger {
    highest: Mutex<BTreeMap<String, u64>>,
}

impl Ledger {
    /// Takes a write to `key`'s resource under `token`, or refuses it as stale; answers whether
    /// it was taken.
    pub(super) fn write(&self, key: &str, token: u64) -> bool {
        let mut highest = self.highest.lock().unwrap_or_else(|e| e.into_inner());
        let highest = highest.entry(key.to_string()).or_default();
        if token < *highest && !planted(Bug::NoFence) {
            return false;
        }
        *highest = token.max(*highest);
        true
    }
}
