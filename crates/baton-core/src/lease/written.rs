//! A term as the store that granted it last wrote it, for stores whose renewal and release
//! write the whole record with no read before them (Kubernetes, DynamoDB).

use std::time::Duration;

use tokio::time::Instant;

use super::{FencingToken, HolderId};

/// What a store's record of a term answers for [`Written`].
pub trait TermRecord {
    /// Whether the record is `holder`'s term under `token`.
    fn held_by(&self, holder: &HolderId, token: FencingToken) -> bool;

    /// How long the term lasts after each write of the record.
    fn duration(&self) -> Duration;
}

/// One term as this store last wrote it, and when that write was sent: the term lapses its
/// duration after the send, whatever the answer's delay.
#[derive(Debug, Clone)]
pub struct Written<R> {
    /// The record as written.
    pub record: R,
    /// When the write was sent.
    pub sent: Instant,
}

impl<R: TermRecord> Written<R> {
    /// Whether this is the term of `holder` under `token`.
    pub fn of(&self, holder: &HolderId, token: FencingToken) -> bool {
        self.record.held_by(holder, token)
    }

    /// Whether the term outlived its duration since its last write was sent: a contender may
    /// have judged it expired, so it must not be renewed.
    pub fn lapsed(&self) -> bool {
        self.sent.elapsed() >= self.record.duration()
    }
}
