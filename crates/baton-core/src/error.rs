//! A portable error type: every backend maps its failures onto one [`ErrorKind`].

use std::fmt;

/// The result type of every fallible operation in baton.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong, independent of the backend that reported it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Another writer won a race; re-read and decide again.
    Conflict,
    /// The lease is no longer held by the caller (expired, taken over or released).
    LeaseLost,
    /// The store could not be reached or refused service; the outcome of a write is unknown.
    Unavailable,
    /// The operation did not finish in time; the outcome of a write is unknown.
    Timeout,
    /// The input was rejected before anything was changed.
    InvalidInput,
    /// The named thing does not exist.
    NotFound,
    /// The store's schema is missing or older than this version of baton expects.
    Schema,
    /// A bug or an unexpected answer from the store.
    Internal,
}

impl ErrorKind {
    /// Whether an operation that failed this way may have taken effect in the store.
    pub fn outcome_unknown(self) -> bool {
        matches!(self, ErrorKind::Unavailable | ErrorKind::Timeout)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::Conflict => "conflict",
            ErrorKind::LeaseLost => "lease lost",
            ErrorKind::Unavailable => "store unavailable",
            ErrorKind::Timeout => "timed out",
            ErrorKind::InvalidInput => "invalid input",
            ErrorKind::NotFound => "not found",
            ErrorKind::Schema => "schema error",
            ErrorKind::Internal => "internal error",
        })
    }
}

/// An error with a portable [`ErrorKind`], a one-line message and an optional source.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    kind: ErrorKind,
    message: String,
    #[source]
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl Error {
    /// Creates an error of the given kind with a one-line message.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error { kind, message: message.into(), source: None }
    }

    /// Attaches the underlying cause.
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Box::new(source));
        self
    }

    /// Shorthand for an [`ErrorKind::InvalidInput`] error.
    pub fn invalid_input(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::InvalidInput, message)
    }

    /// Shorthand for an [`ErrorKind::LeaseLost`] error.
    pub fn lease_lost(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::LeaseLost, message)
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }
}
