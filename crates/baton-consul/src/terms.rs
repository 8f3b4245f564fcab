//! The terms this store granted: each one's session and record as last written, so that a
//! renewal or release needs no read first. A term from another process is found by reading its
//! key (the session that holds it).

use baton_core::lease::Remembered;
use baton_core::{FencingToken, HolderId};

use crate::record::Record;

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

impl Term {
    /// Whether this is the term of `holder` under `token`.
    pub(crate) fn of(&self, holder: &HolderId, token: FencingToken) -> bool {
        self.holder == *holder && self.token == token
    }
}

/// The terms of this store, by lease name. A term is forgotten only if it is the caller's
/// ([`Term::of`]): another holder's term of the same lease in this process stays.
pub(crate) type Terms = Remembered<Term>;
