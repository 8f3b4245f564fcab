//! Settings of a Redis lease store: defaults plus validated builders.

use std::time::Duration;

use baton_core::Result;
use baton_core::settings::{check_history_length, check_timeout};

/// How long a command may wait for its answer, by default. A lease write that gets no answer in
/// time has an unknown outcome.
pub const DEFAULT_RESPONSE_TIMEOUT: Duration = Duration::from_secs(2);
/// How long opening a connection may take, by default.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How many leader changes each lease's history stream keeps, by default (approximately: Redis
/// trims whole blocks of entries).
pub const DEFAULT_HISTORY_LENGTH: u32 = 1000;

/// Settings of a [`RedisLeaseStore`](crate::RedisLeaseStore).
///
/// ```
/// # fn demo() -> baton_core::Result<()> {
/// use std::time::Duration;
/// let options = baton_redis::RedisOptions::default()
///     .response_timeout(Duration::from_millis(500))?
///     .history_length(10_000)?;
/// # let _ = options;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RedisOptions {
    pub(crate) response_timeout: Duration,
    pub(crate) connect_timeout: Duration,
    pub(crate) history_length: u32,
}

impl Default for RedisOptions {
    fn default() -> Self {
        RedisOptions {
            response_timeout: DEFAULT_RESPONSE_TIMEOUT,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            history_length: DEFAULT_HISTORY_LENGTH,
        }
    }
}

impl RedisOptions {
    /// Sets how long a command may wait for its answer (1 ms to 1 hour). A command that times
    /// out fails with [`ErrorKind::Timeout`](baton_core::ErrorKind::Timeout): its outcome is
    /// unknown, and it is never sent again on its own.
    pub fn response_timeout(mut self, timeout: Duration) -> Result<Self> {
        self.response_timeout = check_timeout("Redis response timeout", timeout)?;
        Ok(self)
    }

    /// Sets how long opening a connection may take (1 ms to 1 hour).
    pub fn connect_timeout(mut self, timeout: Duration) -> Result<Self> {
        self.connect_timeout = check_timeout("Redis connect timeout", timeout)?;
        Ok(self)
    }

    /// Sets how many leader changes each lease's history keeps (1 to 1,000,000; Redis trims
    /// approximately, so a few more may remain).
    pub fn history_length(mut self, length: u32) -> Result<Self> {
        self.history_length = check_history_length(length)?;
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_range_settings_are_refused_with_the_value() {
        let err = RedisOptions::default().response_timeout(Duration::ZERO).unwrap_err();
        assert_eq!(err.kind(), baton_core::ErrorKind::InvalidInput);
        assert!(err.to_string().contains("0ns"), "{err}");
        assert!(RedisOptions::default().connect_timeout(Duration::from_secs(7200)).is_err());
        let err = RedisOptions::default().history_length(0).unwrap_err();
        assert!(err.to_string().contains("history length 0"), "{err}");
    }

    #[test]
    fn accepted_settings_are_kept() {
        let options = RedisOptions::default()
            .response_timeout(Duration::from_millis(250))
            .and_then(|o| o.history_length(5))
            .unwrap();
        assert_eq!(options.response_timeout, Duration::from_millis(250));
        assert_eq!(options.history_length, 5);
        assert_eq!(options.connect_timeout, DEFAULT_CONNECT_TIMEOUT);
    }
}
