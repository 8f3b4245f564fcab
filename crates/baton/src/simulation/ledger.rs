//! The resource the leaders write to, fenced by token as a fenced sink is: a write under a
//! token lower than one it already took is refused.

use std::sync::Mutex;

use crate::planted::{Bug, planted};

#[derive(Debug, Default)]
pub(super) struct Ledger {
    highest: Mutex<u64>,
}

impl Ledger {
    /// Takes a write under `token`, or refuses it as stale; answers whether it was taken.
    pub(super) fn write(&self, token: u64) -> bool {
        let mut highest = self.highest.lock().unwrap_or_else(|e| e.into_inner());
        if token < *highest && !planted(Bug::NoFence) {
            return false;
        }
        *highest = token.max(*highest);
        true
    }
}
