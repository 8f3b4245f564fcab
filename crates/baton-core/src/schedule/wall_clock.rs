//! Searches for wall-clock cron patterns: match on the civil clock, then map each matching
//! wall-clock time to exactly one instant.
//!
//! The mapping sends a time that exists once to that instant, a repeated time (fall back) to its
//! first occurrence, and a skipped time (spring forward) to the first instant after the gap. It
//! never decreases as the wall clock advances, which is what lets a search start from the wall
//! clock of the reference instant and skip the few candidates that map to or before it.

use croner::Cron;
use jiff::civil::DateTime;
use jiff::tz::{AmbiguousOffset, TimeZone};
use jiff::{SignedDuration, Timestamp};

/// How many candidates a search may pass over before giving up. Only the rest of a repeated
/// range or a skipped range (an hour or two of wall clock) is ever passed over, so this bound is
/// never reached by a real zone.
const MAX_SKIPPED: usize = 10_000;

/// The instant a wall-clock fire at `dt` happens at in `tz`.
pub(super) fn fire_instant(tz: &TimeZone, dt: DateTime) -> Option<Timestamp> {
    match tz.to_ambiguous_timestamp(dt).offset() {
        AmbiguousOffset::Unambiguous { offset } => offset.to_timestamp(dt).ok(),
        // The earlier occurrence uses the larger offset, the one in force before the fold.
        AmbiguousOffset::Fold { before, after } => before.max(after).to_timestamp(dt).ok(),
        // Read with the offset after the gap, `dt` names an instant just before the transition;
        // the transition itself is the first instant after the gap.
        AmbiguousOffset::Gap { after, .. } => {
            let inside = after.to_timestamp(dt).ok()?;
            tz.following(inside).next().map(|t| t.timestamp())
        }
    }
}

/// The wall-clock time from which a search around `at` must start: the clock reading of `at`,
/// except during the second pass of a repeated range, whose remaining wall-clock times all map
/// to first-pass instants before `at`; there the search starts at the end of the range.
fn clock_reading(tz: &TimeZone, at: Timestamp) -> DateTime {
    let dt = tz.to_datetime(at);
    if let AmbiguousOffset::Fold { before, after } = tz.to_ambiguous_timestamp(dt).offset() {
        let (first, second) = (before.max(after), before.min(after));
        let first_pass = first.to_timestamp(dt).ok();
        if tz.to_offset(at) == second
            && let Some(transition) = first_pass.and_then(|t| tz.following(t).next())
        {
            return first.to_datetime(transition.timestamp());
        }
    }
    dt
}

/// The first fire strictly after `after` (a whole second).
pub(super) fn next_after(cron: &Cron, tz: &TimeZone, after: Timestamp) -> Option<Timestamp> {
    let mut from = clock_reading(tz, after);
    for _ in 0..MAX_SKIPPED {
        let dt = cron.find_next_occurrence(&from, true).ok()?;
        let at = fire_instant(tz, dt)?;
        if at > after {
            return Some(at);
        }
        from = dt.checked_add(SignedDuration::from_secs(1)).ok()?;
    }
    None
}

/// The last fire strictly before `before` (a whole second).
pub(super) fn prev_before(cron: &Cron, tz: &TimeZone, before: Timestamp) -> Option<Timestamp> {
    let mut from = clock_reading(tz, before);
    for _ in 0..MAX_SKIPPED {
        let dt = cron.find_previous_occurrence(&from, false).ok()?;
        let at = fire_instant(tz, dt)?;
        if at < before {
            return Some(at);
        }
        from = dt;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    fn civil(text: &str) -> DateTime {
        text.parse().unwrap()
    }

    #[test]
    fn maps_skipped_times_to_the_end_of_the_gap_and_repeated_times_to_the_first_pass() {
        let ny = super::super::cron::zones().get("America/New_York").unwrap();
        assert_eq!(fire_instant(&ny, civil("2025-03-09T02:30")), Some(ts("2025-03-09T07:00Z")));
        assert_eq!(fire_instant(&ny, civil("2025-03-09T02:00")), Some(ts("2025-03-09T07:00Z")));
        assert_eq!(fire_instant(&ny, civil("2025-03-09T03:00")), Some(ts("2025-03-09T07:00Z")));
        assert_eq!(fire_instant(&ny, civil("2025-11-02T01:30")), Some(ts("2025-11-02T05:30Z")));
        assert_eq!(fire_instant(&ny, civil("2025-11-02T02:00")), Some(ts("2025-11-02T07:00Z")));
        let lord_howe = super::super::cron::zones().get("Australia/Lord_Howe").unwrap();
        let gap = civil("2025-10-05T02:10");
        assert_eq!(fire_instant(&lord_howe, gap), Some(ts("2025-10-04T15:30Z")));
    }

    #[test]
    fn the_second_pass_of_a_repeated_range_reads_as_its_end() {
        let ny = super::super::cron::zones().get("America/New_York").unwrap();
        // 01:15 EST, the second pass.
        assert_eq!(clock_reading(&ny, ts("2025-11-02T06:15Z")), civil("2025-11-02T02:00"));
        // 01:15 EDT, the first pass.
        assert_eq!(clock_reading(&ny, ts("2025-11-02T05:15Z")), civil("2025-11-02T01:15"));
        assert_eq!(clock_reading(&ny, ts("2025-11-02T06:00Z")), civil("2025-11-02T02:00"));
    }
}
