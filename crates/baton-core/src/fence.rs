//! The error of the fenced sink helpers (invariant I4) that every SQL backend provides.

use crate::error::{Error, ErrorKind};
use crate::lease::FencingToken;

/// Why a fenced write was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FenceError {
    /// A newer holder has already written to the resource: roll the transaction back.
    #[error(
        "stale write to {resource} refused: token {presented} is older than the fence at token \
         {current}"
    )]
    Stale {
        /// The protected resource.
        resource: String,
        /// The token the writer presented.
        presented: FencingToken,
        /// The token the fence stands at.
        current: FencingToken,
    },
    /// The fence could not be checked; roll the transaction back.
    #[error(transparent)]
    Store(#[from] Error),
}

impl FenceError {
    /// The portable kind: [`ErrorKind::LeaseLost`] for a stale writer.
    pub fn kind(&self) -> ErrorKind {
        match self {
            FenceError::Stale { .. } => ErrorKind::LeaseLost,
            FenceError::Store(err) => err.kind(),
        }
    }
}

impl From<FenceError> for Error {
    fn from(err: FenceError) -> Self {
        match err {
            FenceError::Store(err) => err,
            stale @ FenceError::Stale { .. } => Error::lease_lost(stale.to_string()),
        }
    }
}
