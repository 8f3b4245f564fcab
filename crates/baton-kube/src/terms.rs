//! The terms this store granted or renewed: the object as last written, so that a renewal or
//! release is one write with no read before it, and when its request was sent, so that a term
//! past its duration is not renewed.

use baton_core::lease::Remembered;
use baton_core::{FencingToken, HolderId};
use tokio::time::Instant;

use crate::record::Record;

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

/// The terms of this store, by lease name. A term is forgotten only if it is the caller's
/// ([`Term::of`]): another holder's term of the same lease in this process stays.
pub(crate) type Terms = Remembered<Term>;
