//! Cron schedules in a named time zone (see the [module docs](super) for the syntax and the
//! daylight-saving rules).

use std::fmt;
use std::sync::{Arc, OnceLock};

use croner::Cron;
use croner::parser::{CronParser, Seconds, Year};
use jiff::Timestamp;
use jiff::civil::DateTime;
use jiff::tz::{TimeZone, TimeZoneDatabase};

use super::wall_clock;
use crate::error::{Error, Result};
use crate::time::StoreTime;

/// What a cron expression may look like, for error messages.
const ACCEPTED: &str = "expected 5 fields (minute hour day-of-month month day-of-week) or 6 \
                        (seconds first), with *, lists, ranges, */steps, L, W, # and \
                        weekdays 0-7 (0 and 7 = Sunday)";

/// A cron pattern evaluated in an IANA time zone.
///
/// Fires are computed on the zone's wall clock and returned as UTC instants; see the
/// [module docs](super) for what happens when the clock jumps.
#[derive(Clone)]
pub struct CronSchedule {
    expression: String,
    zone_name: String,
    zone: TimeZone,
    cron: Arc<Cron>,
    wall_clock: bool,
}

impl CronSchedule {
    /// Parses `expression` and resolves `zone` (an IANA name such as `Europe/London`, or `UTC`)
    /// in the time zone database bundled with baton, never the host's.
    ///
    /// Rejects malformed patterns, unknown zones, and patterns that can never fire, such as
    /// `0 0 30 2 *`: those have no match within 30 years from 2000-01-01T00:00:00Z. That
    /// search is conclusive because a pattern only sees month, day of month and weekday (there is
    /// no year field), and every combination of leap year and starting weekday that the calendar
    /// can produce occurs within any 28 consecutive years between 1901 and 2099.
    pub fn new(expression: &str, zone: &str) -> Result<Self> {
        let expression = expression.split_whitespace().collect::<Vec<_>>().join(" ");
        let parser =
            CronParser::builder().seconds(Seconds::Optional).year(Year::Disallowed).build();
        let cron = parser.parse(&expression).map_err(|err| {
            let reason = err.to_string();
            let reason = reason.trim_end_matches('.');
            Error::invalid_input(format!(
                "invalid cron expression {}: {reason}; {ACCEPTED}",
                crate::echo::quoted(&expression)
            ))
        })?;
        let tz = zones().get(zone).map_err(|_| {
            Error::invalid_input(format!(
                "unknown time zone {zone:?}: expected an IANA name such as \"UTC\", \
                 \"Europe/London\" or \"America/New_York\""
            ))
        })?;
        if !fires_within_thirty_years(&cron) {
            return Err(Error::invalid_input(format!(
                "invalid cron expression {}: it never fires (no match within 30 years)",
                crate::echo::quoted(&expression)
            )));
        }
        let real_time = |c: &croner::CronComponent| c.from_wildcard || c.step > 1;
        let p = &cron.pattern;
        let wall_clock = !(real_time(&p.seconds) || real_time(&p.minutes) || real_time(&p.hours));
        let zone_name = tz.iana_name().unwrap_or(zone).to_string();
        Ok(CronSchedule { expression, zone_name, zone: tz, cron: Arc::new(cron), wall_clock })
    }

    /// Parses `expression` evaluated in UTC.
    pub fn utc(expression: &str) -> Result<Self> {
        CronSchedule::new(expression, "UTC")
    }

    /// The pattern, with runs of whitespace collapsed to single spaces.
    pub fn expression(&self) -> &str {
        &self.expression
    }

    /// The IANA name of the time zone.
    pub fn zone(&self) -> &str {
        &self.zone_name
    }

    /// Whether the pattern names fixed wall-clock times (no `*` or step in its seconds, minutes
    /// and hours fields): such a pattern fires once per matching wall-clock time, even when the
    /// clock skips or repeats it. Other patterns follow real time.
    pub fn is_wall_clock(&self) -> bool {
        self.wall_clock
    }

    /// The first fire strictly after `after`, as a UTC instant; `None` past year 5000.
    pub fn next_after(&self, after: StoreTime) -> Option<StoreTime> {
        let second = after.as_millis().div_euclid(1000);
        let from = match Timestamp::from_second(second) {
            Ok(ts) => ts,
            Err(_) if second < 0 => Timestamp::MIN,
            Err(_) => return None,
        };
        let next = if self.wall_clock {
            wall_clock::next_after(&self.cron, &self.zone, from)?
        } else {
            let zoned = from.to_zoned(self.zone.clone());
            self.cron.find_next_occurrence(&zoned, false).ok()?.timestamp()
        };
        Some(StoreTime::from_millis(next.as_millisecond()))
    }

    /// The last fire strictly before `before`, as a UTC instant; `None` before year 1.
    pub fn prev_before(&self, before: StoreTime) -> Option<StoreTime> {
        let second = before.as_millis().div_euclid(1000)
            + i64::from(before.as_millis().rem_euclid(1000) != 0);
        let until = match Timestamp::from_second(second) {
            Ok(ts) => ts,
            Err(_) if second > 0 => Timestamp::MAX,
            Err(_) => return None,
        };
        let prev = if self.wall_clock {
            wall_clock::prev_before(&self.cron, &self.zone, until)?
        } else {
            let zoned = until.to_zoned(self.zone.clone());
            self.cron.find_previous_occurrence(&zoned, false).ok()?.timestamp()
        };
        Some(StoreTime::from_millis(prev.as_millisecond()))
    }

    /// Whether `at`'s wall-clock reading in the zone matches the pattern.
    pub fn matches(&self, at: StoreTime) -> bool {
        Timestamp::from_millisecond(at.as_millis())
            .ok()
            .and_then(|ts| self.cron.is_time_matching(&ts.to_zoned(self.zone.clone())).ok())
            .unwrap_or(false)
    }
}

/// The time zone database compiled into baton, so that zone rules never depend on the host (its
/// `/usr/share/zoneinfo`, `TZDIR`, or whichever jiff features other crates enable).
pub(super) fn zones() -> &'static TimeZoneDatabase {
    static ZONES: OnceLock<TimeZoneDatabase> = OnceLock::new();
    ZONES.get_or_init(TimeZoneDatabase::bundled)
}

/// Whether the pattern matches any wall-clock time in 2000..2030.
fn fires_within_thirty_years(cron: &Cron) -> bool {
    let start = DateTime::constant(2000, 1, 1, 0, 0, 0, 0);
    let end = DateTime::constant(2030, 1, 1, 0, 0, 0, 0);
    cron.find_next_occurrence(&start, true).is_ok_and(|first| first < end)
}

impl PartialEq for CronSchedule {
    fn eq(&self, other: &Self) -> bool {
        self.expression == other.expression && self.zone_name == other.zone_name
    }
}

impl Eq for CronSchedule {}

impl fmt::Debug for CronSchedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CronSchedule")
            .field("expression", &self.expression)
            .field("zone", &self.zone_name)
            .finish()
    }
}

impl fmt::Display for CronSchedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cron {:?} in {}", self.expression, self.zone_name)
    }
}
