//! Timing of an [`Elector`](super::Elector), validated up front.

use std::time::Duration;

use baton_core::lease::transition::check_ttl;
use baton_core::{Error, HolderId, Result};

/// How an elector times its leases. The defaults: TTL 10 s, renew every 4 s, give up renewing
/// 8 s after the last confirmed call was sent, retry acquisition every 1 s ± 20 %. A renewal
/// that fails is retried every retry period until the deadline, so a holder rides out about
/// 4 s of store trouble, and an idle holder costs the store one statement per 4 s.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ElectorConfig {
    /// Who holds the leases; unique per process incarnation.
    pub holder: HolderId,
    /// How long a lease lives on the store's clock without renewal.
    pub ttl: Duration,
    /// How often held leases are renewed (all of them in one call).
    pub renew_interval: Duration,
    /// How long after sending a successful acquire or renew the holder keeps acting; past it,
    /// the holder steps down. `ttl - renew_deadline` is the safety margin against clock-rate
    /// differences and delays between the store and this process.
    pub renew_deadline: Duration,
    /// How long a waiting contender waits between attempts when it is not woken sooner.
    pub retry_period: Duration,
    /// The fraction of the retry period added or removed at random, so contenders spread out.
    pub jitter: f64,
    /// If this process did not run for longer than this (paused, starved), it steps down.
    pub stall_threshold: Duration,
}

impl Default for ElectorConfig {
    fn default() -> Self {
        let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "node".to_string());
        ElectorConfig::new(HolderId::generate(&host, fastrand::u32(..)))
    }
}

impl ElectorConfig {
    /// The default timing for `holder`.
    pub fn new(holder: HolderId) -> Self {
        ElectorConfig {
            holder,
            ttl: Duration::from_secs(10),
            renew_interval: Duration::from_secs(4),
            renew_deadline: Duration::from_secs(8),
            retry_period: Duration::from_secs(1),
            jitter: 0.2,
            stall_threshold: Duration::from_secs(2),
        }
    }

    /// Timing scaled from `ttl`: renew every TTL/5, deadline at 7/10 of the TTL, retry every
    /// TTL/10, stall threshold TTL/5.
    pub fn with_ttl(self, ttl: Duration) -> Self {
        ElectorConfig {
            ttl,
            renew_interval: ttl / 5,
            renew_deadline: ttl * 7 / 10,
            retry_period: ttl / 10,
            stall_threshold: ttl / 5,
            ..self
        }
    }

    /// Checks that the timing is coherent: renew interval < renew deadline < TTL.
    pub fn validate(&self) -> Result<()> {
        check_ttl(self.ttl)?;
        if !(self.renew_interval < self.renew_deadline && self.renew_deadline < self.ttl) {
            return Err(Error::invalid_input(format!(
                "invalid lease timing: expected renew interval ({:?}) < renew deadline ({:?}) < \
                 TTL ({:?})",
                self.renew_interval, self.renew_deadline, self.ttl
            )));
        }
        if self.renew_interval.is_zero() || self.retry_period.is_zero() {
            return Err(Error::invalid_input(format!(
                "invalid lease timing: renew interval ({:?}) and retry period ({:?}) must be \
                 positive",
                self.renew_interval, self.retry_period
            )));
        }
        if !(0.0..1.0).contains(&self.jitter) {
            return Err(Error::invalid_input(format!(
                "invalid jitter {}: expected a fraction from 0 up to (not including) 1",
                self.jitter
            )));
        }
        if self.stall_threshold.is_zero() || self.stall_threshold >= self.renew_deadline {
            return Err(Error::invalid_input(format!(
                "invalid stall threshold {:?}: expected more than zero and less than the renew \
                 deadline ({:?})",
                self.stall_threshold, self.renew_deadline
            )));
        }
        Ok(())
    }

    /// How long a campaign that stepped down stays out of the election: two retry periods at
    /// their longest jitter, so that a contender polling every retry period gets its turn.
    pub(crate) fn stand_aside(&self) -> Duration {
        self.retry_period.mul_f64(2.0 * (1.0 + self.jitter))
    }

    /// The retry period with jitter applied.
    pub(crate) fn jittered_retry(&self) -> Duration {
        let factor = 1.0 + self.jitter * (fastrand::f64() * 2.0 - 1.0);
        self.retry_period.mul_f64(factor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_scaled_timings_are_valid() {
        ElectorConfig::default().validate().unwrap();
        ElectorConfig::default().with_ttl(Duration::from_secs(1)).validate().unwrap();
    }

    #[test]
    fn incoherent_timing_is_rejected_with_the_values() {
        let config =
            ElectorConfig { renew_deadline: Duration::from_secs(12), ..Default::default() };
        let err = config.validate().unwrap_err();
        assert!(err.to_string().contains("renew deadline (12s)"), "{err}");
        let config = ElectorConfig { jitter: 1.5, ..Default::default() };
        assert!(config.validate().is_err());
    }

    #[test]
    fn jitter_stays_within_bounds() {
        let config = ElectorConfig::default();
        for _ in 0..1000 {
            let wait = config.jittered_retry();
            assert!(wait >= Duration::from_millis(800) && wait <= Duration::from_millis(1200));
        }
    }
}
