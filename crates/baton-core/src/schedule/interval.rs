//! Fixed-interval schedules aligned to the Unix epoch.

use std::fmt;
use std::time::Duration;

use super::format;
use crate::error::{Error, Result};
use crate::time::StoreTime;

/// The shortest interval accepted.
pub const MIN_INTERVAL: Duration = Duration::from_secs(1);
/// The longest interval accepted: 366 days.
pub const MAX_INTERVAL: Duration = Duration::from_secs(366 * 86_400);

/// Fires at every whole multiple of an interval since the Unix epoch.
///
/// Anchoring to the epoch rather than to a start time makes the instants a pure function of the
/// interval, so every node that becomes leader computes the same fire identities. An interval of
/// `1h` fires on the hour (UTC), `1d` at midnight UTC, and `7d` every Thursday at midnight UTC
/// (the epoch was a Thursday).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IntervalSchedule {
    millis: i64,
}

impl IntervalSchedule {
    /// Validates an interval: 1 s to 366 days, in whole milliseconds.
    pub fn new(interval: Duration) -> Result<Self> {
        let whole_millis = interval.subsec_nanos().is_multiple_of(1_000_000);
        if !(MIN_INTERVAL..=MAX_INTERVAL).contains(&interval) || !whole_millis {
            return Err(Error::invalid_input(format!(
                "invalid interval {interval:?}: expected 1s to 366 days (8784h) in whole \
                 milliseconds"
            )));
        }
        // In range, so at most 366 days of milliseconds: fits an i64.
        Ok(IntervalSchedule { millis: interval.as_millis() as i64 })
    }

    /// The interval.
    pub fn interval(&self) -> Duration {
        Duration::from_millis(self.millis as u64)
    }

    /// The interval in milliseconds (the storage form).
    pub fn as_millis(&self) -> i64 {
        self.millis
    }

    /// The first fire strictly after `after`, or `None` past the end of time.
    pub fn next_after(&self, after: StoreTime) -> Option<StoreTime> {
        let index = after.as_millis().div_euclid(self.millis).checked_add(1)?;
        index.checked_mul(self.millis).map(StoreTime::from_millis)
    }

    /// The last fire strictly before `before`, or `None` before the start of time.
    pub fn prev_before(&self, before: StoreTime) -> Option<StoreTime> {
        let index = before.as_millis().checked_sub(1)?.div_euclid(self.millis);
        index.checked_mul(self.millis).map(StoreTime::from_millis)
    }

    /// How many fires lie in `(after, until]`, without enumerating them.
    pub fn count_between(&self, after: StoreTime, until: StoreTime) -> u64 {
        let last = until.as_millis().div_euclid(self.millis);
        let first = after.as_millis().div_euclid(self.millis);
        u64::try_from(i128::from(last) - i128::from(first)).unwrap_or(0)
    }

    /// Whether `at` is one of this schedule's fires.
    pub fn fires_at(&self, at: StoreTime) -> bool {
        at.as_millis().rem_euclid(self.millis) == 0
    }
}

impl fmt::Display for IntervalSchedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "every {}", format::duration(self.interval()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(millis: i64) -> StoreTime {
        StoreTime::from_millis(millis)
    }

    fn every(secs: u64) -> IntervalSchedule {
        IntervalSchedule::new(Duration::from_secs(secs)).unwrap()
    }

    #[test]
    fn fires_on_multiples_of_the_interval_since_the_epoch() {
        let s = every(30);
        assert_eq!(s.next_after(at(0)), Some(at(30_000)));
        assert_eq!(s.next_after(at(29_999)), Some(at(30_000)));
        assert_eq!(s.next_after(at(30_000)), Some(at(60_000)));
        assert_eq!(s.next_after(at(-1)), Some(at(0)));
        assert_eq!(s.next_after(at(-30_000)), Some(at(0)));
        assert_eq!(s.prev_before(at(30_000)), Some(at(0)));
        assert_eq!(s.prev_before(at(30_001)), Some(at(30_000)));
        assert_eq!(s.prev_before(at(0)), Some(at(-30_000)));
        assert!(s.fires_at(at(90_000)) && !s.fires_at(at(90_001)) && s.fires_at(at(-30_000)));
    }

    #[test]
    fn counts_match_enumeration() {
        let s = IntervalSchedule::new(Duration::from_millis(7_000)).unwrap();
        for (a, b) in [(0, 0), (0, 7_000), (-1, 6_999), (-20_000, 50_000), (3, 70_000), (9, 5)] {
            let mut n = 0;
            let mut t = s.next_after(at(a));
            while let Some(x) = t.filter(|x| x.as_millis() <= b) {
                n += 1;
                t = s.next_after(x);
            }
            assert_eq!(s.count_between(at(a), at(b)), n, "({a}, {b}]");
        }
        let day = every(1);
        assert_eq!(day.count_between(at(0), at(86_400_000)), 86_400);
    }

    #[test]
    fn the_ends_of_time_give_none_instead_of_overflowing() {
        let s = every(1);
        assert_eq!(s.next_after(at(i64::MAX)), None);
        assert_eq!(s.prev_before(at(i64::MIN)), None);
        assert!(s.count_between(at(i64::MIN), at(i64::MAX)) > 0);
    }

    #[test]
    fn rejects_intervals_out_of_range_or_below_a_millisecond() {
        for bad in [
            Duration::ZERO,
            Duration::from_millis(999),
            MAX_INTERVAL + Duration::from_millis(1),
            Duration::from_nanos(1_000_000_001),
        ] {
            let err = IntervalSchedule::new(bad).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::InvalidInput);
            assert!(err.to_string().contains(&format!("{bad:?}")), "{err}");
        }
        assert!(IntervalSchedule::new(MIN_INTERVAL).is_ok());
        assert!(IntervalSchedule::new(MAX_INTERVAL).is_ok());
    }

    #[test]
    fn displays_in_parseable_units() {
        assert_eq!(every(30).to_string(), "every 30s");
        assert_eq!(every(5400).to_string(), "every 1h30m");
    }
}
