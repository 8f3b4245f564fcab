//! The terms this store granted or renewed: the object as last written, so that a renewal or
//! release is one write with no read before it, and when its request was sent, so that a term
//! past its duration is not renewed.

use std::collections::HashMap;
use std::sync::Mutex;

use baton_core::{FencingToken, HolderId};
use tokio::time::Instant;

use crate::record::Record;

/// Terms remembered beyond which the memory is cleared (a forgotten term costs a read).
const MAX_REMEMBERED: usize = 4096;

/// One term as this store last wrote it.
#[derive(Clone)]
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

    /// The term last written for `name`.
    pub(crate) fn get(&self, name: &str) -> Option<Term> {
        self.lock().get(name).cloned()
    }

    /// Remembers a write of `name`'s term.
    pub(crate) fn remember(&self, name: &str, term: Term) {
        let mut terms = self.lock();
        if terms.len() >= MAX_REMEMBERED {
            terms.clear();
        }
        terms.insert(name.to_string(), term);
    }

    /// Forgets `name`'s term of `holder` under `token` (released, or lost); another holder's
    /// term of the same lease in this process stays.
    pub(crate) fn forget(&self, name: &str, holder: &HolderId, token: FencingToken) {
        let mut terms = self.lock();
        if terms.get(name).is_some_and(|term| term.of(holder, token)) {
            terms.remove(name);
        }
    }
}
