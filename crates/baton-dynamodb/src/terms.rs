//! The terms this store granted or renewed: the record as last written and when that write was
//! sent, so that a renewal needs no read before it and a term past its duration is not renewed.

use std::collections::HashMap;
use std::sync::Mutex;

use baton_core::{FencingToken, HolderId};
use tokio::time::Instant;

use crate::record::Record;

/// Terms remembered beyond which the memory is cleared (a forgotten term costs a read).
const MAX_REMEMBERED: usize = 4096;

/// One term as this store last wrote it.
#[derive(Debug, Clone)]
pub(crate) struct Term {
    /// The record as written.
    pub(crate) record: Record,
    /// When the write was sent: the term lapses its duration after that.
    pub(crate) sent: Instant,
}

impl Term {
    /// Whether this is the term of `holder` under `token`.
    pub(crate) fn of(&self, holder: &HolderId, token: FencingToken) -> bool {
        self.record.held_by(holder, token)
    }

    /// Whether the term outlived its duration since its last write was sent: a contender may
    /// have judged it expired.
    pub(crate) fn lapsed(&self) -> bool {
        self.sent.elapsed() >= self.record.duration
    }
}

/// The terms of this store, by lease name.
#[derive(Default)]
pub(crate) struct Terms {
    terms: Mutex<HashMap<String, Term>>,
}

impl Terms {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Term>> {
        self.terms.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The term of `holder` under `token` last written for `name`, if this store wrote it.
    pub(crate) fn get(&self, name: &str, holder: &HolderId, token: FencingToken) -> Option<Term> {
        self.lock().get(name).filter(|term| term.of(holder, token)).cloned()
    }

    /// Remembers a write of `name`'s term.
    pub(crate) fn remember(&self, name: &str, term: Term) {
        let mut terms = self.lock();
        if terms.len() >= MAX_REMEMBERED {
            terms.clear();
        }
        terms.insert(name.to_string(), term);
    }

    /// Forgets `name`'s term of `holder` under `token` (released, or lost).
    pub(crate) fn forget(&self, name: &str, holder: &HolderId, token: FencingToken) {
        let mut terms = self.lock();
        if terms.get(name).is_some_and(|term| term.of(holder, token)) {
            terms.remove(name);
        }
    }
}
