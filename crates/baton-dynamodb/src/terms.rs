//! The terms this store granted or renewed: the record as last written and when that write was
//! sent, so that a renewal needs no read before it and a term past its duration is not renewed.

use baton_core::lease::{Remembered, Written};

use crate::record::Record;

/// One term as this store last wrote it.
pub(crate) type Term = Written<Record>;

/// The terms of this store, by lease name. A term is forgotten only if it is the caller's
/// ([`Written::of`]): another holder's term of the same lease in this process stays.
pub(crate) type Terms = Remembered<Term>;
