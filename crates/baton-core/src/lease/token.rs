//! Fencing tokens.

use std::fmt;

use crate::error::{Error, Result};

/// A number issued with every acquisition of a lease, strictly greater than every token issued
/// before it for that lease name.
///
/// Renewals keep the token; only a new acquisition issues a new one. A resource protected by a
/// lease accepts a write only if its token is at least the highest token it has seen, which is
/// what stops a paused or partitioned former holder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FencingToken(u64);

impl FencingToken {
    /// Wraps a raw token value; tokens start at 1.
    pub fn new(value: u64) -> Result<Self> {
        if value == 0 {
            return Err(Error::invalid_input("invalid fencing token 0: tokens start at 1"));
        }
        Ok(FencingToken(value))
    }

    /// The raw value, as passed to commands in `BATON_FENCING_TOKEN`.
    pub fn get(self) -> u64 {
        self.0
    }

    /// Converts a value read from a store's signed 64-bit column.
    pub fn from_store(value: i64) -> Result<Self> {
        u64::try_from(value)
            .map_err(|_| Error::new(crate::ErrorKind::Internal, format!("negative token {value}")))
            .and_then(FencingToken::new)
    }

    /// The value as a store's signed 64-bit column holds it.
    pub fn to_store(self) -> i64 {
        i64::try_from(self.0).unwrap_or(i64::MAX)
    }
}

impl fmt::Display for FencingToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl std::str::FromStr for FencingToken {
    type Err = Error;
    fn from_str(text: &str) -> Result<Self> {
        text.parse::<u64>().ok().filter(|v| *v > 0).map(FencingToken).ok_or_else(|| {
            Error::invalid_input(format!(
                "invalid fencing token {}: expected a positive integer",
                crate::echo::quoted(text)
            ))
        })
    }
}
