//! Retries of failed executions with exponential backoff.

use std::time::Duration;

use super::format;
use crate::error::{Error, Result};

/// The most attempts a job may make for one fire.
pub const MAX_ATTEMPTS: u32 = 100;
/// The longest backoff accepted.
pub const MAX_BACKOFF: Duration = Duration::from_secs(86_400);

/// How often, and how long apart, a failed execution is retried.
///
/// Each retry is a new attempt with a new fencing token. The wait after failed attempt `n` is
/// `initial_backoff × 2^(n−1)`, capped at `max_backoff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct RetryPolicy {
    /// Attempts per fire, the first included: 1 (the default) never retries. 1 to 100.
    pub max_attempts: u32,
    /// The wait after the first failure (default 1 s; at least 1 ms).
    pub initial_backoff: Duration,
    /// The longest wait (default 5 min; at least `initial_backoff`, at most 1 day).
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 1,
            initial_backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(300),
        }
    }
}

impl RetryPolicy {
    /// No retries: one attempt per fire.
    pub fn none() -> Self {
        RetryPolicy::default()
    }

    /// Sets the attempts per fire, the first included.
    pub fn with_max_attempts(mut self, max_attempts: u32) -> Self {
        self.max_attempts = max_attempts;
        self
    }

    /// Sets the first and the longest wait.
    pub fn with_backoff(mut self, initial: Duration, max: Duration) -> Self {
        self.initial_backoff = initial;
        self.max_backoff = max;
        self
    }

    /// Checks the ranges documented on the fields.
    pub fn validate(&self) -> Result<()> {
        if !(1..=MAX_ATTEMPTS).contains(&self.max_attempts) {
            return Err(Error::invalid_input(format!(
                "invalid max_attempts {}: expected 1 (no retries) to {MAX_ATTEMPTS}",
                self.max_attempts
            )));
        }
        if self.initial_backoff < Duration::from_millis(1) {
            return Err(Error::invalid_input(format!(
                "invalid initial_backoff {}: expected at least 1ms",
                format::duration(self.initial_backoff)
            )));
        }
        if self.max_backoff < self.initial_backoff || self.max_backoff > MAX_BACKOFF {
            return Err(Error::invalid_input(format!(
                "invalid max_backoff {}: expected from initial_backoff ({}) to 24h",
                format::duration(self.max_backoff),
                format::duration(self.initial_backoff)
            )));
        }
        Ok(())
    }

    /// Whether another attempt follows failed attempt `failed_attempt` (1-based).
    pub fn should_retry(&self, failed_attempt: u32) -> bool {
        failed_attempt < self.max_attempts
    }

    /// The wait after failed attempt `failed_attempt` (1-based; 0 is read as 1):
    /// `initial_backoff × 2^(failed_attempt − 1)`, capped at `max_backoff`. Never overflows.
    pub fn backoff(&self, failed_attempt: u32) -> Duration {
        let doublings = failed_attempt.saturating_sub(1);
        1u32.checked_shl(doublings)
            .and_then(|factor| self.initial_backoff.checked_mul(factor))
            .map_or(self.max_backoff, |wait| wait.min(self.max_backoff))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(initial_ms: u64, max_ms: u64) -> RetryPolicy {
        RetryPolicy::default()
            .with_max_attempts(5)
            .with_backoff(Duration::from_millis(initial_ms), Duration::from_millis(max_ms))
    }

    #[test]
    fn backoff_doubles_from_the_initial_wait_up_to_the_cap() {
        let p = policy(1_000, 10_000);
        let waits: Vec<u64> = (1..=6).map(|n| p.backoff(n).as_millis() as u64).collect();
        assert_eq!(waits, [1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
        assert_eq!(p.backoff(0), Duration::from_secs(1));
    }

    #[test]
    fn backoff_never_overflows() {
        let p = policy(1, MAX_BACKOFF.as_millis() as u64);
        for n in [31, 32, 33, 63, 64, 65, 1_000, u32::MAX] {
            assert_eq!(p.backoff(n), MAX_BACKOFF, "attempt {n}");
        }
        let big = RetryPolicy::default().with_backoff(Duration::MAX, Duration::MAX);
        assert_eq!(big.backoff(2), Duration::MAX);
    }

    #[test]
    fn retries_until_max_attempts() {
        let p = policy(1_000, 2_000);
        assert!(p.should_retry(4) && !p.should_retry(5));
        assert!(!RetryPolicy::none().should_retry(1));
    }

    #[test]
    fn the_default_is_valid_and_never_retries() {
        let p = RetryPolicy::default();
        p.validate().unwrap();
        assert_eq!(
            (p.max_attempts, p.initial_backoff, p.max_backoff),
            (1, Duration::from_secs(1), Duration::from_secs(300))
        );
    }

    #[test]
    fn validation_names_the_value_and_the_range() {
        let cases = [
            (RetryPolicy::default().with_max_attempts(0), "max_attempts 0"),
            (RetryPolicy::default().with_max_attempts(101), "max_attempts 101"),
            (policy(0, 1_000), "initial_backoff 0s"),
            (policy(2_000, 1_000), "max_backoff 1s"),
            (policy(1_000, 86_400_001), "max_backoff 24h1ms"),
        ];
        for (p, named) in cases {
            let err = p.validate().unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::InvalidInput);
            assert!(err.to_string().starts_with(&format!("invalid {named}:")), "{err}");
        }
    }
}
