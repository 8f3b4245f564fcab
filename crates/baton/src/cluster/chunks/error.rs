//! Why a chunked step ended before the end of its partition.

use std::error::Error as StdError;
use std::fmt;
use std::ops::Range;

use baton_core::{Error, ErrorKind};

/// Why a chunked step did not finish its partition. Every chunk committed before it stays
/// committed, and a later claim resumes after the last one.
#[derive(Debug)]
#[non_exhaustive]
pub enum StepError {
    /// The partition was told to stop: it was lost, its node fenced, or the node shuts down.
    Stopped {
        /// Items committed, those of earlier claims included, as far as this claim knew.
        committed: u64,
    },
    /// The reader failed, or the checkpoint to resume from was not written by a chunked step.
    Read {
        /// The index of the item being read within the partition (0 when the checkpoint is
        /// unreadable).
        index: u64,
        /// What the reader or the checkpoint answered.
        source: Error,
    },
    /// The processor refused an item.
    Item {
        /// The item's index within the partition.
        index: u64,
        /// Why.
        source: Box<dyn StdError + Send + Sync>,
    },
    /// A chunk or its checkpoint could not be written; `LeaseLost` when the claim is no
    /// longer current.
    Write {
        /// The indexes of the chunk's items.
        items: Range<u64>,
        /// What the writer or the store answered.
        source: Error,
    },
}

impl StepError {
    /// The portable kind: `LeaseLost` for a stopped step, `InvalidInput` for a refused item,
    /// the source's kind otherwise.
    pub fn kind(&self) -> ErrorKind {
        match self {
            StepError::Stopped { .. } => ErrorKind::LeaseLost,
            StepError::Item { .. } => ErrorKind::InvalidInput,
            StepError::Read { source, .. } | StepError::Write { source, .. } => source.kind(),
        }
    }
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepError::Stopped { committed } => {
                write!(f, "stopped with {committed} items committed")
            }
            StepError::Read { index, source } => write!(f, "reading item {index}: {source}"),
            StepError::Item { index, source } => write!(f, "processing item {index}: {source}"),
            StepError::Write { items, source } => {
                write!(f, "writing items {}..{}: {source}", items.start, items.end)
            }
        }
    }
}

impl StdError for StepError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self {
            StepError::Stopped { .. } => None,
            StepError::Read { source, .. } | StepError::Write { source, .. } => Some(source),
            StepError::Item { source, .. } => Some(&**source),
        }
    }
}

impl From<StepError> for Error {
    fn from(err: StepError) -> Self {
        Error::new(err.kind(), err.to_string())
    }
}
