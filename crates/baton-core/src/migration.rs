//! What a schema migration run did, as the SQL backends report it.

use std::fmt;

/// One schema migration a `migrate` run applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Migration {
    /// Its version, the number its file name starts with.
    pub version: i64,
    /// What it does, from the rest of its file name (`leader change previous end`).
    pub description: String,
}

impl fmt::Display for Migration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04} {}", self.version, self.description)
    }
}
