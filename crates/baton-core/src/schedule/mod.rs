//! The scheduling vocabulary: job names, schedules, policies and misfire decisions.
//!
//! Everything here is pure: time is passed in as [`StoreTime`] (milliseconds since the Unix
//! epoch, UTC), nothing reads a clock. A fire is identified by `(job, instant)`, so every
//! function that produces instants is deterministic: any node computing the fires of a schedule
//! gets the same instants.
//!
//! # Schedules
//!
//! - [`CronSchedule`]: a cron pattern in an IANA time zone. Five fields (`minute hour
//!   day-of-month month day-of-week`, seconds 0) or six (seconds first). Fields take `*`, lists
//!   (`1,15`), ranges (`1-5`), steps (`*/15`, `10-50/10`), names (`JAN`, `MON`), `L` (last day
//!   of the month; `5L` the last Friday), `W` (`15W`, the weekday nearest the 15th) and `#`
//!   (`1#2`, the second Monday), plus `@yearly`, `@monthly`, `@weekly`, `@daily` and `@hourly`.
//!   Weekdays are POSIX: 0 and 7 are Sunday, 1 is Monday. As in Vixie cron, when both the
//!   day-of-month and day-of-week fields are restricted a day matching either fires; a `+`
//!   before the weekday (`0 0 1 * +MON`) requires both. There is no year field.
//! - [`IntervalSchedule`]: every whole multiple of an interval since the Unix epoch.
//! - [`Schedule::Once`]: a single instant.
//!
//! # Daylight saving time
//!
//! Cron patterns are matched against the zone's wall clock. When the clock jumps, baton follows
//! the rules of croner (and of Vixie cron), with one widening noted below. A pattern is
//! **wall-clock** when its seconds, minutes and hours fields contain no `*` and no step, e.g.
//! `30 2 * * *` or `0 30 1,13 * * *`; every other pattern, e.g. `*/15 * * * *` or
//! `0 * * * *`, is **real-time**.
//!
//! - **Spring forward (a gap).** A wall-clock job whose time is skipped fires once, at the first
//!   instant after the gap: a daily `30 2 * * *` in New York fires at 03:00 EDT on 2025-03-09.
//!   A real-time job has no fires inside the gap and resumes on its next wall-clock match: a
//!   `*/15 * * * *` job goes from 01:45 EST straight to 03:00 EDT, 15 real minutes later.
//! - **Fall back (a repeated range).** A wall-clock job fires once, at the first occurrence of
//!   its time: a daily `30 1 * * *` in New York fires at 01:30 EDT on 2025-11-02 and not again
//!   at 01:30 EST. A real-time job fires on both passes: `*/15 * * * *` fires every 15 real
//!   minutes through the repeated hour, 100 times that day instead of 96.
//!
//! croner applies the wall-clock rules only to patterns with a single value in each of the
//! seconds, minutes and hours fields; patterns with lists or ranges there (`30 2,14 * * *`) it
//! treats as real-time, so their 02:30 silently disappears on spring-forward day and their 01:30
//! fires twice on fall-back day. baton treats those as wall-clock too: every matching wall-clock
//! time maps to exactly one instant (the first occurrence, or the end of the gap), so a
//! wall-clock job can neither lose a fire nor fire twice for the same reading of the clock.
//!
//! Cron fires are whole seconds; an argument with a sub-second part is still honoured exactly
//! (`next_after(10:00:00.500)` of an every-second pattern is `10:00:01`).
//!
//! Time zones come from the IANA database compiled into baton (jiff's bundled copy), never from
//! the host, so every node computes the same instants.

mod backoff;
mod cron;
mod format;
mod interval;
mod job_name;
mod job_policy;
mod misfire;
mod policy;
mod storage;
mod wall_clock;

#[cfg(test)]
mod cron_tests;
#[cfg(test)]
mod dst_tests;
#[cfg(test)]
mod misfire_tests;

use std::fmt;
use std::time::Duration;

pub use backoff::{MAX_ATTEMPTS, MAX_BACKOFF, RetryPolicy};
pub use cron::CronSchedule;
pub use interval::{IntervalSchedule, MAX_INTERVAL, MIN_INTERVAL};
pub use job_name::JobName;
pub use job_policy::{JobPolicy, MAX_CATCH_UP, MAX_JITTER, Retention};
pub use misfire::{FirePlan, MISSED_COUNT_LIMIT, MissedRange, plan_fires};
pub use policy::{MisfirePolicy, OverlapPolicy};
pub use storage::ScheduleKind;

use crate::error::Result;
use crate::time::StoreTime;

/// When a job fires.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Schedule {
    /// A cron pattern in a time zone.
    Cron(CronSchedule),
    /// Every multiple of an interval since the Unix epoch.
    Every(IntervalSchedule),
    /// Once, at the given instant.
    Once(StoreTime),
}

impl Schedule {
    /// A cron schedule in the IANA zone `zone`; see [`CronSchedule::new`].
    pub fn cron(expression: &str, zone: &str) -> Result<Self> {
        CronSchedule::new(expression, zone).map(Schedule::Cron)
    }

    /// An interval schedule; see [`IntervalSchedule::new`].
    pub fn every(interval: Duration) -> Result<Self> {
        IntervalSchedule::new(interval).map(Schedule::Every)
    }

    /// A schedule that fires once, at `at`.
    pub fn once(at: StoreTime) -> Self {
        Schedule::Once(at)
    }

    /// The first fire strictly after `after`, or `None` if there is none.
    pub fn next_after(&self, after: StoreTime) -> Option<StoreTime> {
        match self {
            Schedule::Cron(cron) => cron.next_after(after),
            Schedule::Every(every) => every.next_after(after),
            Schedule::Once(at) => (*at > after).then_some(*at),
        }
    }

    /// The last fire strictly before `before`, or `None` if there is none.
    pub fn prev_before(&self, before: StoreTime) -> Option<StoreTime> {
        match self {
            Schedule::Cron(cron) => cron.prev_before(before),
            Schedule::Every(every) => every.prev_before(before),
            Schedule::Once(at) => (*at < before).then_some(*at),
        }
    }

    /// The fires in `(after, until]`, ascending. Lazy: take only what you need.
    pub fn fires_between(
        &self,
        after: StoreTime,
        until: StoreTime,
    ) -> impl Iterator<Item = StoreTime> + '_ {
        let mut cursor = after;
        std::iter::from_fn(move || {
            let next = self.next_after(cursor).filter(|at| *at <= until)?;
            cursor = next;
            Some(next)
        })
    }

    /// How many fires lie in `(after, until]`, counting at most `limit` of them one by one.
    ///
    /// Returns the count and whether it is exact. Interval and one-off schedules are counted by
    /// arithmetic and always exact; a cron schedule with more than `limit` fires in the range
    /// returns `(limit, false)`, a lower bound.
    pub fn count_between(&self, after: StoreTime, until: StoreTime, limit: u64) -> (u64, bool) {
        match self {
            Schedule::Every(every) => (every.count_between(after, until), true),
            Schedule::Once(at) => (u64::from(after < *at && *at <= until), true),
            Schedule::Cron(_) => {
                let mut fires = self.fires_between(after, until);
                let counted = fires.by_ref().take(usize::try_from(limit).unwrap_or(usize::MAX));
                let count = counted.count() as u64;
                (count, fires.next().is_none())
            }
        }
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Schedule::Cron(cron) => cron.fmt(f),
            Schedule::Every(every) => every.fmt(f),
            Schedule::Once(at) => write!(f, "once at {}", format::instant(*at)),
        }
    }
}
