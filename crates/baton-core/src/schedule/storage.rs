//! The storage form of a schedule: a kind, an expression and an optional zone, three columns
//! that round-trip through [`Schedule::from_parts`].

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use super::{CronSchedule, IntervalSchedule, Schedule};
use crate::error::{Error, Result};
use crate::time::StoreTime;

/// Which kind of [`Schedule`] a stored schedule is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ScheduleKind {
    /// A cron pattern in a time zone: `"cron"`.
    Cron,
    /// A fixed interval: `"every"`.
    Every,
    /// A single instant: `"once"`.
    Once,
}

impl ScheduleKind {
    /// The stored name: `"cron"`, `"every"` or `"once"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ScheduleKind::Cron => "cron",
            ScheduleKind::Every => "every",
            ScheduleKind::Once => "once",
        }
    }
}

impl fmt::Display for ScheduleKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for ScheduleKind {
    type Err = Error;
    fn from_str(text: &str) -> Result<Self> {
        match text {
            "cron" => Ok(ScheduleKind::Cron),
            "every" => Ok(ScheduleKind::Every),
            "once" => Ok(ScheduleKind::Once),
            _ => Err(Error::invalid_input(format!(
                "invalid schedule kind {}: expected one of cron, every, once",
                crate::echo::quoted(text)
            ))),
        }
    }
}

impl Schedule {
    /// The kind, for storage.
    pub fn kind(&self) -> ScheduleKind {
        match self {
            Schedule::Cron(_) => ScheduleKind::Cron,
            Schedule::Every(_) => ScheduleKind::Every,
            Schedule::Once(_) => ScheduleKind::Once,
        }
    }

    /// The expression, for storage: the cron pattern, the interval in milliseconds, or the
    /// instant in milliseconds since the Unix epoch.
    pub fn expression(&self) -> String {
        match self {
            Schedule::Cron(cron) => cron.expression().to_string(),
            Schedule::Every(every) => every.as_millis().to_string(),
            Schedule::Once(at) => at.as_millis().to_string(),
        }
    }

    /// The IANA time zone of a cron schedule; `None` for the other kinds.
    pub fn zone(&self) -> Option<&str> {
        match self {
            Schedule::Cron(cron) => Some(cron.zone()),
            Schedule::Every(_) | Schedule::Once(_) => None,
        }
    }

    /// Rebuilds a schedule from [`kind`](Self::kind), [`expression`](Self::expression) and
    /// [`zone`](Self::zone). A cron schedule without a zone is in UTC; a zone on another kind
    /// is rejected.
    pub fn from_parts(kind: ScheduleKind, expression: &str, zone: Option<&str>) -> Result<Self> {
        fn millis<T: FromStr>(what: &str, expression: &str) -> Result<T> {
            expression.trim().parse::<T>().map_err(|_| {
                Error::invalid_input(format!(
                    "invalid {what} {}: expected a whole number of milliseconds",
                    crate::echo::quoted(expression)
                ))
            })
        }
        match (kind, zone) {
            (ScheduleKind::Cron, zone) => {
                CronSchedule::new(expression, zone.unwrap_or("UTC")).map(Schedule::Cron)
            }
            (_, Some(zone)) => Err(Error::invalid_input(format!(
                "invalid time zone {} for a {kind} schedule: only cron schedules have a zone",
                crate::echo::quoted(zone)
            ))),
            (ScheduleKind::Every, None) => {
                let ms = millis("interval", expression)?;
                IntervalSchedule::new(Duration::from_millis(ms)).map(Schedule::Every)
            }
            (ScheduleKind::Once, None) => {
                Ok(Schedule::Once(StoreTime::from_millis(millis("instant", expression)?)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(schedule: &Schedule) -> Schedule {
        let kind: ScheduleKind = schedule.kind().as_str().parse().unwrap();
        Schedule::from_parts(kind, &schedule.expression(), schedule.zone()).unwrap()
    }

    #[test]
    fn every_kind_round_trips_through_its_parts() {
        let schedules = [
            Schedule::cron("0 */5 * * * *", "Asia/Seoul").unwrap(),
            Schedule::cron("30 2 * * MON-FRI", "America/New_York").unwrap(),
            Schedule::every(Duration::from_secs(30)).unwrap(),
            Schedule::every(Duration::from_millis(1_500)).unwrap(),
            Schedule::once(StoreTime::from_millis(1_795_255_200_000)),
        ];
        for schedule in &schedules {
            assert_eq!(&round_trip(schedule), schedule, "{schedule}");
        }
        assert_eq!(schedules[2].expression(), "30000");
        assert_eq!(schedules[0].zone(), Some("Asia/Seoul"));
        assert_eq!(schedules[2].zone(), None);
    }

    #[test]
    fn displays_for_humans() {
        let cron = Schedule::cron("0  */5 * * * *", "Asia/Seoul").unwrap();
        assert_eq!(cron.to_string(), r#"cron "0 */5 * * * *" in Asia/Seoul"#);
        assert_eq!(Schedule::every(Duration::from_secs(30)).unwrap().to_string(), "every 30s");
        let once = Schedule::once(StoreTime::from_millis(1_795_255_200_000));
        assert_eq!(once.to_string(), "once at 2026-11-21T10:00:00Z");
    }

    #[test]
    fn a_cron_schedule_without_a_zone_is_utc() {
        let schedule = Schedule::from_parts(ScheduleKind::Cron, "0 0 * * *", None).unwrap();
        assert_eq!(schedule.zone(), Some("UTC"));
    }

    #[test]
    fn malformed_parts_are_rejected_naming_the_value() {
        let cases = [
            (ScheduleKind::Every, "abc", None, "\"abc\""),
            (ScheduleKind::Every, "0", None, "0ns"),
            (ScheduleKind::Every, "-5", None, "\"-5\""),
            (ScheduleKind::Once, "soon", None, "\"soon\""),
            (ScheduleKind::Once, "0", Some("UTC"), "\"UTC\""),
            (ScheduleKind::Cron, "0 0 * * *", Some("Mars/Olympus"), "\"Mars/Olympus\""),
        ];
        for (kind, expression, zone, named) in cases {
            let err = Schedule::from_parts(kind, expression, zone).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::InvalidInput);
            assert!(err.to_string().contains(named), "{err}");
        }
        let err = "weekly".parse::<ScheduleKind>().unwrap_err();
        assert!(err.to_string().contains("cron, every, once"), "{err}");
    }
}
