//! The terms this store granted or renewed: the object as last written, so that a renewal or
//! release is one write with no read before it, and when its request was sent, so that a term
//! past its duration is not renewed.

use baton_core::lease::{Remembered, Written};

use crate::record::Record;

/// One term as this store last wrote it.
pub(crate) type Term = Written<Record>;

/// The terms of this store, by lease name. A term is forgotten only if it is the caller's
/// ([`Written::of`]): another holder's term of the same lease in this process stays.
pub(crate) type Terms = Remembered<Term>;
