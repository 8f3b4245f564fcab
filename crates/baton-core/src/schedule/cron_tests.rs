//! Tests of cron parsing, validation and next/previous fire computation.

use jiff::Timestamp;

use super::CronSchedule;
use crate::ErrorKind;
use crate::time::StoreTime;

pub(super) fn t(text: &str) -> StoreTime {
    let ts: Timestamp = text.parse().unwrap();
    StoreTime::from_millis(ts.as_millisecond())
}

fn next(cron: &CronSchedule, after: &str) -> StoreTime {
    cron.next_after(t(after)).unwrap()
}

#[test]
fn five_fields_mean_second_zero_and_six_put_seconds_first() {
    let five = CronSchedule::utc("*/5 * * * *").unwrap();
    assert_eq!(next(&five, "2025-06-01T10:00:00Z"), t("2025-06-01T10:05:00Z"));
    let six = CronSchedule::utc("*/10 * * * * *").unwrap();
    assert_eq!(next(&six, "2025-06-01T10:00:00Z"), t("2025-06-01T10:00:10Z"));
    let six = CronSchedule::utc("30 15 10 * * *").unwrap();
    assert_eq!(next(&six, "2025-06-01T00:00:00Z"), t("2025-06-01T10:15:30Z"));
}

#[test]
fn last_nearest_weekday_and_nth_weekday_work() {
    let cases = [
        ("0 0 L * *", "2024-02-01T00:00:00Z", "2024-02-29T00:00:00Z"),
        ("0 0 15W * *", "2025-06-01T00:00:00Z", "2025-06-16T00:00:00Z"), // 15th is a Sunday
        ("0 0 * * 1#2", "2025-06-01T00:00:00Z", "2025-06-09T00:00:00Z"),
        ("0 0 * * 5L", "2025-06-01T00:00:00Z", "2025-06-27T00:00:00Z"),
        ("@monthly", "2025-06-01T00:00:00Z", "2025-07-01T00:00:00Z"),
    ];
    for (pattern, after, expected) in cases {
        let cron = CronSchedule::utc(pattern).unwrap();
        assert_eq!(next(&cron, after), t(expected), "{pattern}");
    }
}

#[test]
fn weekdays_are_posix_and_either_day_field_may_match() {
    // 2025-06-01 is a Sunday.
    for sunday in ["0 0 * * 0", "0 0 * * 7", "0 0 * * SUN"] {
        let cron = CronSchedule::utc(sunday).unwrap();
        assert_eq!(next(&cron, "2025-05-31T12:00:00Z"), t("2025-06-01T00:00:00Z"), "{sunday}");
    }
    let monday = CronSchedule::utc("0 0 * * 1").unwrap();
    assert_eq!(next(&monday, "2025-05-31T12:00:00Z"), t("2025-06-02T00:00:00Z"));
    // The 13th or a Friday: Friday 2025-06-06 comes first.
    let either = CronSchedule::utc("0 0 13 * 5").unwrap();
    assert_eq!(next(&either, "2025-06-01T00:00:00Z"), t("2025-06-06T00:00:00Z"));
    // `+` requires both: the next Friday the 13th.
    let both = CronSchedule::utc("0 0 13 * +5").unwrap();
    assert_eq!(next(&both, "2025-06-01T00:00:00Z"), t("2025-06-13T00:00:00Z"));
    assert_eq!(next(&both, "2025-06-13T00:00:00Z"), t("2026-02-13T00:00:00Z"));
}

#[test]
fn malformed_expressions_are_rejected_naming_the_value() {
    for bad in ["", "* * * *", "61 * * * *", "0/5 * * * *", "0 0 1 1 * 2030", "0 0 * * 8", "x"] {
        let err = CronSchedule::utc(bad).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        let message = err.to_string();
        assert!(message.starts_with(&format!("invalid cron expression {bad:?}: ")), "{message}");
        assert!(message.contains("expected 5 fields"), "{message}");
        assert!(!message.contains('\n'), "{message}");
    }
}

#[test]
fn expressions_that_never_fire_are_rejected() {
    for never in ["0 0 30 2 *", "0 0 31 4,6,9,11 *", "0 0 31 2 +1", "0 0 0 30 2 *"] {
        let err = CronSchedule::utc(never).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert_eq!(
            err.to_string(),
            format!("invalid cron expression {never:?}: it never fires (no match within 30 years)")
        );
    }
    // Rare but real: leap days, and Friday the 13th in February.
    for rare in ["0 0 29 2 *", "0 0 13 2 +5", "0 0 29 2 +1"] {
        assert!(CronSchedule::utc(rare).is_ok(), "{rare}");
    }
}

#[test]
fn unknown_zones_are_rejected_naming_the_zone() {
    let err = CronSchedule::new("0 0 * * *", "Mars/Olympus_Mons").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(err.to_string().starts_with(r#"unknown time zone "Mars/Olympus_Mons": "#), "{err}");
    let seoul = CronSchedule::new("0 9 * * *", "Asia/Seoul").unwrap();
    assert_eq!(seoul.zone(), "Asia/Seoul");
    assert_eq!(next(&seoul, "2025-06-01T00:00:00Z"), t("2025-06-02T00:00:00Z"));
}

#[test]
fn sub_second_instants_are_honoured() {
    let cron = CronSchedule::utc("* * * * * *").unwrap();
    let half = StoreTime::from_millis(t("2025-06-01T10:00:00Z").as_millis() + 500);
    assert_eq!(cron.next_after(half), Some(t("2025-06-01T10:00:01Z")));
    assert_eq!(cron.prev_before(half), Some(t("2025-06-01T10:00:00Z")));
    assert_eq!(cron.prev_before(t("2025-06-01T10:00:00Z")), Some(t("2025-06-01T09:59:59Z")));
}

#[test]
fn classifies_wall_clock_and_real_time_patterns() {
    for wall in ["30 2 * * *", "0 30 1,13 * * *", "0-10 9 * * 1-5", "@daily"] {
        assert!(CronSchedule::utc(wall).unwrap().is_wall_clock(), "{wall}");
    }
    for real in ["*/15 * * * *", "0 * * * *", "0 0 */2 * * *", "0 10-50/10 9 * * *", "@hourly"] {
        assert!(!CronSchedule::utc(real).unwrap().is_wall_clock(), "{real}");
    }
}

/// A small deterministic generator of instants, so the property tests need no dependency.
fn instants(seed: u64, from: &str, span_days: i64, n: usize) -> Vec<StoreTime> {
    let base = t(from).as_millis();
    let span = span_days * 86_400_000;
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            StoreTime::from_millis(base + ((state >> 11) as i64).rem_euclid(span))
        })
        .collect()
}

/// Whether `at` is the instant a time zone transition takes effect (the end of a gap).
pub(super) fn is_transition(zone: &str, at: StoreTime) -> bool {
    let tz = super::cron::zones().get(zone).unwrap();
    let ts = Timestamp::from_millisecond(at.as_millis()).unwrap();
    let just_after = ts.checked_add(jiff::SignedDuration::from_nanos(1)).unwrap();
    tz.preceding(just_after).next().is_some_and(|transition| transition.timestamp() == ts)
}

const PATTERNS: &[&str] = &[
    "*/15 * * * *",
    "30 2 * * *",
    "0 30 1,13 * * *",
    "0 0 * * 0",
    "15,45 1-3 * * *",
    "*/20 */7 * * * *",
    "0 0 L * *",
    "0 */2 * * *",
];
const ZONES: &[&str] = &["UTC", "America/New_York", "Europe/London", "Australia/Lord_Howe"];

#[test]
fn next_after_is_strictly_later_matches_and_skips_nothing() {
    for zone in ZONES {
        for (i, pattern) in PATTERNS.iter().enumerate() {
            let cron = CronSchedule::new(pattern, zone).unwrap();
            for x in instants(i as u64 + 1, "2024-01-01T00:00:00Z", 3 * 366, 60) {
                let fire = cron.next_after(x).unwrap();
                assert!(fire > x, "{pattern} {zone}: {fire} after {x}");
                let fits =
                    cron.matches(fire) || (cron.is_wall_clock() && is_transition(zone, fire));
                assert!(fits, "{pattern} in {zone}: {fire} does not match");
                // No fire lies in between.
                assert!(cron.prev_before(fire).unwrap() <= x, "{pattern} {zone}: skipped a fire");
                let prev = cron.prev_before(x).unwrap();
                assert!(prev < x && cron.next_after(prev).unwrap() >= x, "{pattern} {zone}");
            }
        }
    }
}

#[test]
fn chains_of_fires_increase_and_read_the_same_backwards() {
    for zone in ZONES {
        for pattern in PATTERNS {
            let cron = CronSchedule::new(pattern, zone).unwrap();
            // Spans the 2025 transitions of every zone above.
            for start in ["2025-03-08T00:00:00Z", "2025-10-03T00:00:00Z", "2025-04-04T00:00:00Z"] {
                let mut forward = vec![cron.next_after(t(start)).unwrap()];
                while forward.len() < 400 {
                    let next = cron.next_after(*forward.last().unwrap()).unwrap();
                    assert!(next > *forward.last().unwrap(), "{pattern} {zone}");
                    forward.push(next);
                }
                let mut backward = vec![*forward.last().unwrap()];
                while backward.len() < forward.len() {
                    backward.push(cron.prev_before(*backward.last().unwrap()).unwrap());
                }
                backward.reverse();
                assert_eq!(forward, backward, "{pattern} in {zone} from {start}");
            }
        }
    }
}
