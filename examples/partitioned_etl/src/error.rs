//! What can go wrong running the ETL. A malformed input row is not an error: it becomes a
//! flagged output row.

use std::path::{Path, PathBuf};

/// An error of the ETL.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EtlError {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// A store call failed.
    #[error(transparent)]
    Store(#[from] baton::Error),
    /// A partition's parameters, checkpoint or result could not be read back.
    #[error("invalid {what} {text}: {source}")]
    Json {
        /// Which document.
        what: &'static str,
        /// The text as stored.
        text: String,
        /// What the parser said.
        #[source]
        source: serde_json::Error,
    },
    /// The input or the output on disk is not what the plan or a checkpoint says.
    #[error("{0}")]
    Mismatch(String),
    /// The partition was told to stop (it moved, or its node is stopping).
    #[error("the partition was told to stop")]
    Stopped,
    /// A conversion task panicked or was cancelled.
    #[error("a conversion task did not finish: {0}")]
    Task(#[from] tokio::task::JoinError),
}

/// A function that wraps an I/O error with the file it concerns.
pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> EtlError + '_ {
    move |source| EtlError::Io { path: path.to_path_buf(), source }
}

/// Parses one of the JSON documents kept in the store.
pub(crate) fn from_json<T: serde::de::DeserializeOwned>(
    what: &'static str,
    text: &str,
) -> Result<T, EtlError> {
    serde_json::from_str(text).map_err(|source| EtlError::Json {
        what,
        text: text.to_owned(),
        source,
    })
}

/// Serializes a document of plain numbers to keep in the store.
pub(crate) fn to_json<T: serde::Serialize>(
    value: &T,
) -> Result<baton::cluster::JsonText, EtlError> {
    let text = serde_json::to_string(value).expect("a struct of numbers always serializes");
    Ok(baton::cluster::JsonText::new(text)?)
}
