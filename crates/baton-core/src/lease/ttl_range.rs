//! The TTLs a lease store grants, so that a caller can ask for one the store accepts.

use std::time::Duration;

use super::transition::{MAX_TTL, MIN_TTL};

/// The TTLs a lease store grants: from the shortest to the longest, in whole seconds where the
/// store counts them so. The store refuses any other TTL with `InvalidInput`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TtlRange {
    shortest: Duration,
    longest: Duration,
    whole_seconds: bool,
}

impl TtlRange {
    /// Any TTL from `shortest` to `longest`.
    pub const fn new(shortest: Duration, longest: Duration) -> Self {
        TtlRange { shortest, longest, whole_seconds: false }
    }

    /// Whole seconds from `shortest` to `longest`, both whole seconds themselves.
    pub const fn in_whole_seconds(shortest: Duration, longest: Duration) -> Self {
        TtlRange { shortest, longest, whole_seconds: true }
    }

    /// The shortest TTL granted.
    pub fn shortest(&self) -> Duration {
        self.shortest
    }

    /// The longest TTL granted.
    pub fn longest(&self) -> Duration {
        self.longest
    }

    /// Whether only whole seconds are granted.
    pub fn whole_seconds(&self) -> bool {
        self.whole_seconds
    }

    /// Whether the store grants `ttl`.
    pub fn grants(&self, ttl: Duration) -> bool {
        (self.shortest..=self.longest).contains(&ttl) && !(self.whole_seconds && has_fraction(ttl))
    }

    /// `wanted` where the store grants it, else the granted TTL nearest to it: the shortest
    /// below the range, the longest above it, the next whole second between.
    pub fn nearest(&self, wanted: Duration) -> Duration {
        let clamped = wanted.clamp(self.shortest, self.longest);
        match self.whole_seconds && has_fraction(clamped) {
            true => Duration::from_secs(clamped.as_secs() + 1).min(self.longest),
            false => clamped,
        }
    }
}

/// Every TTL baton accepts, from [`MIN_TTL`] to [`MAX_TTL`]: what a store grants unless it says
/// otherwise.
impl Default for TtlRange {
    fn default() -> Self {
        TtlRange::new(MIN_TTL, MAX_TTL)
    }
}

fn has_fraction(ttl: Duration) -> bool {
    ttl.subsec_nanos() != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECONDS: TtlRange =
        TtlRange::in_whole_seconds(Duration::from_secs(15), Duration::from_secs(60));

    #[test]
    fn grants_whole_seconds_within_the_range_only() {
        assert!(SECONDS.grants(Duration::from_secs(15)) && SECONDS.grants(Duration::from_secs(60)));
        assert!(!SECONDS.grants(Duration::from_secs(14)));
        assert!(!SECONDS.grants(Duration::from_secs(61)));
        assert!(!SECONDS.grants(Duration::from_millis(20_500)));
        assert!(TtlRange::default().grants(Duration::from_millis(20_500)));
        assert!(!TtlRange::default().grants(Duration::from_millis(9)));
    }

    #[test]
    fn nearest_keeps_a_granted_ttl_and_moves_others_into_the_range() {
        let nearest = |ms| SECONDS.nearest(Duration::from_millis(ms));
        assert_eq!(nearest(20_000), Duration::from_secs(20));
        assert_eq!(nearest(2_000), Duration::from_secs(15));
        assert_eq!(nearest(90_000), Duration::from_secs(60));
        assert_eq!(nearest(20_500), Duration::from_secs(21));
        assert_eq!(TtlRange::default().nearest(Duration::ZERO), MIN_TTL);
    }
}
