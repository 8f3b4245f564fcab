//! Instants read from a store's clock.

use std::fmt;
use std::time::Duration;

/// An instant on the store's clock, in milliseconds since the Unix epoch.
///
/// Expiry is always judged by comparing two `StoreTime`s that came from the same store, never
/// by comparing clocks of different nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StoreTime(i64);

impl StoreTime {
    /// The instant `millis` milliseconds after the Unix epoch.
    pub const fn from_millis(millis: i64) -> Self {
        StoreTime(millis)
    }

    /// Milliseconds since the Unix epoch.
    pub const fn as_millis(self) -> i64 {
        self.0
    }

    /// The instant `duration` later, saturating.
    pub fn saturating_add(self, duration: Duration) -> Self {
        let millis = i64::try_from(duration.as_millis()).unwrap_or(i64::MAX);
        StoreTime(self.0.saturating_add(millis))
    }

    /// How long after `earlier` this instant is, or zero if it is not later.
    pub fn saturating_since(self, earlier: StoreTime) -> Duration {
        Duration::from_millis(u64::try_from(self.0.saturating_sub(earlier.0)).unwrap_or(0))
    }
}

impl StoreTime {
    /// Parses an RFC 3339 instant with an offset (`2026-11-21T10:00:00Z`,
    /// `2026-11-21T19:00:00+09:00`), kept to the millisecond.
    pub fn parse(text: &str) -> crate::Result<Self> {
        text.parse::<jiff::Timestamp>().map(|ts| StoreTime(ts.as_millisecond())).map_err(|_| {
            crate::Error::invalid_input(format!(
                "invalid instant {}: expected RFC 3339 with an offset, such as \
                     2026-11-21T10:00:00Z",
                crate::echo::quoted(text)
            ))
        })
    }
}

impl fmt::Display for StoreTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match jiff::Timestamp::from_millisecond(self.0) {
            Ok(ts) => f.pad(&format!("{ts:.3}")),
            Err(_) => f.pad(&format!("{}ms", self.0)),
        }
    }
}

/// A source of store time, injected so that tests can drive expiry by hand.
pub trait Clock: Send + Sync + 'static {
    /// The current instant.
    fn now(&self) -> StoreTime;
}

/// The host's wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> StoreTime {
        let since_epoch =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        StoreTime::from_millis(i64::try_from(since_epoch.as_millis()).unwrap_or(i64::MAX))
    }
}

/// A clock that moves only when told to.
#[derive(Debug, Default)]
pub struct ManualClock {
    millis: std::sync::atomic::AtomicI64,
}

impl ManualClock {
    /// A clock standing at `start`.
    pub fn new(start: StoreTime) -> Self {
        ManualClock { millis: std::sync::atomic::AtomicI64::new(start.as_millis()) }
    }

    /// Moves the clock forward.
    pub fn advance(&self, by: Duration) {
        let millis = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        self.millis.fetch_add(millis, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> StoreTime {
        StoreTime::from_millis(self.millis.load(std::sync::atomic::Ordering::SeqCst))
    }
}

/// Parses a duration such as `500ms`, `10s`, `2m`, `1h` or `1m30s`.
pub fn parse_duration(text: &str) -> crate::Result<Duration> {
    let invalid = || {
        crate::Error::invalid_input(format!(
            "invalid duration {}: expected a number with a unit (ms, s, m, h), such as \
             \"500ms\", \"10s\" or \"1m30s\"",
            crate::echo::quoted(text)
        ))
    };
    let mut total = Duration::ZERO;
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err(invalid());
    }
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit()).ok_or_else(invalid)?;
        let value: u64 = rest[..digits].parse().map_err(|_| invalid())?;
        rest = &rest[digits..];
        let unit_len = rest.find(|c: char| c.is_ascii_digit()).unwrap_or(rest.len());
        let part = match &rest[..unit_len] {
            "ms" => Duration::from_millis(value),
            "s" => Duration::from_secs(value),
            "m" => Duration::from_secs(value.saturating_mul(60)),
            "h" => Duration::from_secs(value.saturating_mul(3600)),
            _ => return Err(invalid()),
        };
        total = total.saturating_add(part);
        rest = &rest[unit_len..];
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_with_units_and_compound_forms() {
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("10s").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_duration("1m30s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("2h").unwrap(), Duration::from_secs(7200));
    }

    #[test]
    fn malformed_durations_name_the_value() {
        for bad in ["", "10", "s", "10x", "-1s", "1.5s"] {
            let err = parse_duration(bad).unwrap_err();
            assert!(err.to_string().contains(&format!("{bad:?}")), "{err}");
        }
    }

    #[test]
    fn store_time_prints_as_utc() {
        assert_eq!(StoreTime::from_millis(1_500).to_string(), "1970-01-01T00:00:01.500Z");
    }
}
