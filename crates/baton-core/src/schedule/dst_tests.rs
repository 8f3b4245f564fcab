//! The daylight-saving rules of the module docs, checked on real 2025 transitions:
//! America/New_York (1 h at 02:00), Europe/London (1 h at 01:00 UTC) and Australia/Lord_Howe
//! (30 min at 02:00).

use jiff::civil::Date;

use super::Schedule;
use super::cron_tests::{is_transition, t};
use crate::time::StoreTime;

/// Every fire of `pattern` in `zone` during the local calendar day `date`.
fn fires_on(pattern: &str, zone: &str, date: &str) -> Vec<StoreTime> {
    let tz = super::cron::zones().get(zone).unwrap();
    let day: Date = date.parse().unwrap();
    let midnight = |d: Date| d.to_zoned(tz.clone()).unwrap().timestamp().as_millisecond();
    let start = StoreTime::from_millis(midnight(day) - 1);
    let end = StoreTime::from_millis(midnight(day.tomorrow().unwrap()) - 1);
    let schedule = Schedule::cron(pattern, zone).unwrap();
    schedule.fires_between(start, end).collect()
}

fn all(texts: &[&str]) -> Vec<StoreTime> {
    texts.iter().map(|text| t(text)).collect()
}

/// Asserts that consecutive fires are exactly `minutes` of real time apart.
fn assert_evenly_spaced(fires: &[StoreTime], minutes: i64) {
    for pair in fires.windows(2) {
        let gap = pair[1].as_millis() - pair[0].as_millis();
        assert_eq!(gap, minutes * 60_000, "between {} and {}", pair[0], pair[1]);
    }
}

const NY: &str = "America/New_York";
const LONDON: &str = "Europe/London";
const LORD_HOWE: &str = "Australia/Lord_Howe";

#[test]
fn a_skipped_wall_clock_time_fires_once_at_the_end_of_the_gap() {
    // 02:30 does not exist in New York on 2025-03-09: it fires at 03:00 EDT.
    assert_eq!(fires_on("30 2 * * *", NY, "2025-03-09"), all(&["2025-03-09T07:00:00Z"]));
    assert_eq!(fires_on("30 2 * * *", NY, "2025-03-10"), all(&["2025-03-10T06:30:00Z"]));
    assert!(is_transition(NY, t("2025-03-09T07:00:00Z")));
    // London skips 01:00-02:00 BST on 2025-03-30; Lord Howe skips 02:00-02:30 on 2025-10-05.
    assert_eq!(fires_on("30 1 * * *", LONDON, "2025-03-30"), all(&["2025-03-30T01:00:00Z"]));
    assert_eq!(fires_on("15 2 * * *", LORD_HOWE, "2025-10-05"), all(&["2025-10-04T15:30:00Z"]));
    // Every skipped time maps to the same instant, which fires once.
    assert_eq!(fires_on("0 0,30 2 * * *", NY, "2025-03-09"), all(&["2025-03-09T07:00:00Z"]));
}

#[test]
fn a_time_just_before_the_gap_fires_once() {
    // croner #67: a job in the hour before the gap also fired right after it.
    assert_eq!(fires_on("30 1 * * *", NY, "2025-03-09"), all(&["2025-03-09T06:30:00Z"]));
    assert_eq!(fires_on("45 1 * * *", LORD_HOWE, "2025-10-05"), all(&["2025-10-04T15:15:00Z"]));
}

#[test]
fn a_repeated_wall_clock_time_fires_once_on_its_first_occurrence() {
    // 01:30 happens twice in New York on 2025-11-02: 05:30Z (EDT) and 06:30Z (EST).
    assert_eq!(fires_on("30 1 * * *", NY, "2025-11-02"), all(&["2025-11-02T05:30:00Z"]));
    assert_eq!(fires_on("30 1 * * *", LONDON, "2025-10-26"), all(&["2025-10-26T00:30:00Z"]));
    // Lord Howe repeats 01:30-02:00 on 2025-04-06: 01:45 at +11 (14:45Z) and +10:30 (15:15Z).
    assert_eq!(fires_on("45 1 * * *", LORD_HOWE, "2025-04-06"), all(&["2025-04-05T14:45:00Z"]));
}

#[test]
fn a_repeated_time_is_not_refired_whatever_instant_the_search_starts_from() {
    let schedule = Schedule::cron("30 1 * * *", NY).unwrap();
    let tomorrow = Some(t("2025-11-03T06:30:00Z"));
    for after in ["2025-11-02T05:30:00Z", "2025-11-02T06:00:00Z", "2025-11-02T06:15:00Z"] {
        assert_eq!(schedule.next_after(t(after)), tomorrow, "after {after}");
    }
    let tonight = Some(t("2025-11-02T05:30:00Z"));
    for before in ["2025-11-02T06:15:00Z", "2025-11-02T06:30:00Z", "2025-11-02T06:45:00Z"] {
        assert_eq!(schedule.prev_before(t(before)), tonight, "before {before}");
    }
}

#[test]
fn lists_of_wall_clock_times_follow_the_same_rules() {
    // croner alone treats these as interval patterns: it drops the 02:30 on spring-forward day
    // and fires the 01:30 twice on fall-back day.
    let spring = fires_on("0 30 2,14 * * *", NY, "2025-03-09");
    assert_eq!(spring, all(&["2025-03-09T07:00:00Z", "2025-03-09T18:30:00Z"]));
    let fall = fires_on("0 30 1,13 * * *", NY, "2025-11-02");
    assert_eq!(fall, all(&["2025-11-02T05:30:00Z", "2025-11-02T18:30:00Z"]));
}

#[test]
fn step_patterns_follow_real_time_through_a_repeated_hour() {
    let fires = fires_on("*/15 * * * *", NY, "2025-11-02");
    assert_eq!(fires.len(), 100, "96 + 4 in the repeated hour");
    assert_evenly_spaced(&fires, 15);
    let repeated: Vec<_> = fires
        .iter()
        .filter(|at| (t("2025-11-02T05:00:00Z")..t("2025-11-02T07:00:00Z")).contains(at))
        .collect();
    assert_eq!(repeated.len(), 8, "01:00-01:45 EDT, then 01:00-01:45 EST");

    let fires = fires_on("*/30 * * * *", LONDON, "2025-10-26");
    assert_eq!(fires.len(), 50);
    assert_evenly_spaced(&fires, 30);
    let fires = fires_on("*/15 * * * *", LORD_HOWE, "2025-04-06");
    assert_eq!(fires.len(), 98, "96 + 2 in the repeated half hour");
    assert_evenly_spaced(&fires, 15);
}

#[test]
fn step_patterns_have_no_fires_inside_a_gap() {
    let fires = fires_on("*/15 * * * *", NY, "2025-03-09");
    assert_eq!(fires.len(), 92);
    assert_evenly_spaced(&fires, 15);
    assert!(
        fires.contains(&t("2025-03-09T06:45:00Z")) && fires.contains(&t("2025-03-09T07:00:00Z"))
    );
    let fires = fires_on("*/15 * * * *", LORD_HOWE, "2025-10-05");
    assert_eq!(fires.len(), 94);
    assert_evenly_spaced(&fires, 15);
    // Hourly fires follow real hours: 23 on the short day, 25 on the long one.
    assert_eq!(fires_on("0 * * * *", NY, "2025-03-09").len(), 23);
    assert_eq!(fires_on("0 * * * *", NY, "2025-11-02").len(), 25);
    // A stepped hour field skips the hour that does not exist.
    let every_two_hours = fires_on("0 */2 * * *", NY, "2025-03-09");
    assert!(!every_two_hours.contains(&t("2025-03-09T07:00:00Z")));
    assert_eq!(every_two_hours.len(), 11);
}
