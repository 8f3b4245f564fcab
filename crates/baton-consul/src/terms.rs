//! The terms this store granted: each one's session and record as last written, so that a
//! renewal or release needs no read first. A term from another process is found by reading its
//! key (the session that holds it).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use baton_core::{FencingToken, HolderId};

use crate::record::Record;

/// Terms remembered beyond which the memory is cleared (a forgotten term costs a read).
const MAX_REMEMBERED: usize = 4096;

/// One term as this store last wrote it.
#[derive(Debug, Clone)]
pub(crate) struct Term {
    pub(crate) holder: HolderId,
    pub(crate) token: FencingToken,
    /// The session holding the lease's key for this term.
    pub(crate) session: String,
    /// The record as last written.
    pub(crate) record: Record,
}

/// The terms of this store, by lease name.
#[derive(Default)]
pub(crate) struct Terms {
    terms: Mutex<HashMap<String, Term>>,
}

impl Terms {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Term>> {
        self.terms.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The term of `holder` under `token` on lease `name`, if this store remembers it.
    pub(crate) fn get(&self, name: &str, holder: &HolderId, token: FencingToken) -> Option<Term> {
        let terms = self.lock();
        terms.get(name).filter(|term| term.holder == *holder && term.token == token).cloned()
    }

    /// Remembers `name`'s term as last written.
    pub(crate) fn remember(&self, name: &str, term: Term) {
        let mut terms = self.lock();
        if terms.len() >= MAX_REMEMBERED {
            terms.clear();
        }
        terms.insert(name.to_string(), term);
    }

    /// Forgets `name`'s term of `holder` under `token`; another term of the lease stays.
    pub(crate) fn forget(&self, name: &str, holder: &HolderId, token: FencingToken) {
        let mut terms = self.lock();
        if terms.get(name).is_some_and(|term| term.holder == *holder && term.token == token) {
            terms.remove(name);
        }
    }
}
