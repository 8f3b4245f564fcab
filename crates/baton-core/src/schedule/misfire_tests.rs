//! Misfire decisions over fixed instants.

use std::time::Duration;

use super::cron_tests::t;
use super::{FirePlan, JobPolicy, MisfirePolicy, MissedRange, Schedule, plan_fires};
use crate::time::StoreTime;

const MINUTE: i64 = 60_000;

fn every(secs: u64) -> Schedule {
    Schedule::every(Duration::from_secs(secs)).unwrap()
}

fn policy(misfire: MisfirePolicy) -> JobPolicy {
    JobPolicy::default().with_misfire(misfire)
}

fn plus(at: &str, millis: i64) -> StoreTime {
    StoreTime::from_millis(t(at).as_millis() + millis)
}

fn missed(first: &str, last: &str, count: u64, reason: &str) -> MissedRange {
    MissedRange { first: t(first), last: t(last), count, count_exact: true, reason: reason.into() }
}

const T10: &str = "2026-11-21T10:00:00Z";

#[test]
fn nothing_is_due_before_the_next_fire() {
    let plan =
        plan_fires(&every(60), &JobPolicy::default(), Some(t(T10)), t(T10), plus(T10, 59_999));
    assert_eq!(plan, FirePlan { next_after_plan: Some(plus(T10, MINUTE)), ..FirePlan::default() });
}

#[test]
fn a_new_job_never_back_fills_before_its_registration() {
    let registered = plus(T10, 30_000);
    let plan = plan_fires(&every(60), &JobPolicy::default(), None, registered, registered);
    assert!(plan.run.is_empty() && plan.missed.is_empty());
    assert_eq!(plan.next_after_plan, Some(plus(T10, MINUTE)));
    // Registered exactly on a fire instant: that fire belongs to before the registration.
    let plan = plan_fires(&every(60), &JobPolicy::default(), None, t(T10), plus(T10, 1));
    assert!(plan.run.is_empty() && plan.missed.is_empty());
    // Its first fire after registration runs.
    let plan = plan_fires(&every(60), &JobPolicy::default(), None, registered, plus(T10, MINUTE));
    assert_eq!(plan.run, [plus(T10, MINUTE)]);
}

#[test]
fn a_fire_up_to_the_threshold_late_just_runs() {
    for policy in [MisfirePolicy::Skip, MisfirePolicy::RunLatest, MisfirePolicy::RunAll] {
        for late in [0, 1, 59_999, 60_000] {
            let now = plus(T10, 2 * MINUTE + late);
            let plan = plan_fires(&every(120), &self::policy(policy), Some(t(T10)), t(T10), now);
            assert_eq!(plan.run, [plus(T10, 2 * MINUTE)], "{policy} {late}ms late");
            assert!(plan.missed.is_empty(), "{policy} {late}ms late");
            assert_eq!(plan.next_after_plan, Some(plus(T10, 4 * MINUTE)));
        }
    }
}

#[test]
fn skip_misses_every_misfired_fire() {
    let now = plus(T10, 5 * MINUTE + 30_000);
    let plan = plan_fires(&every(60), &policy(MisfirePolicy::Skip), Some(t(T10)), t(T10), now);
    assert_eq!(plan.run, [plus(T10, 5 * MINUTE)]);
    let reason = "misfire=skip: more than misfire_threshold=1m late";
    assert_eq!(plan.missed, [missed("2026-11-21T10:01:00Z", "2026-11-21T10:04:00Z", 4, reason)]);
    // With none in the threshold, nothing runs.
    let p = policy(MisfirePolicy::Skip).with_misfire_threshold(Duration::from_secs(10));
    let plan = plan_fires(&every(60), &p, Some(t(T10)), t(T10), now);
    assert!(plan.run.is_empty());
    let reason = "misfire=skip: more than misfire_threshold=10s late";
    assert_eq!(plan.missed, [missed("2026-11-21T10:01:00Z", "2026-11-21T10:05:00Z", 5, reason)]);
}

#[test]
fn run_latest_lets_one_run_cover_the_misfired_fires() {
    // A fire within the threshold runs and supersedes the older ones.
    let now = plus(T10, 5 * MINUTE + 30_000);
    let plan = plan_fires(&every(60), &JobPolicy::default(), Some(t(T10)), t(T10), now);
    assert_eq!(plan.run, [plus(T10, 5 * MINUTE)]);
    let reason = "misfire=run-latest: superseded by 2026-11-21T10:05:00Z";
    assert_eq!(plan.missed, [missed("2026-11-21T10:01:00Z", "2026-11-21T10:04:00Z", 4, reason)]);
    // Three days of downtime of a daily job: only the newest runs.
    let day = 86_400_000;
    let last = t("2026-11-21T00:00:00Z");
    let now = plus("2026-11-24T12:00:00Z", 0);
    let plan = plan_fires(&every(86_400), &JobPolicy::default(), Some(last), last, now);
    assert_eq!(plan.run, [StoreTime::from_millis(last.as_millis() + 3 * day)]);
    let reason = "misfire=run-latest: superseded by 2026-11-24T00:00:00Z";
    assert_eq!(plan.missed, [missed("2026-11-22T00:00:00Z", "2026-11-23T00:00:00Z", 2, reason)]);
    assert_eq!(plan.next_after_plan, Some(t("2026-11-25T00:00:00Z")));
    assert_eq!(plan.last_planned(), Some(t("2026-11-24T00:00:00Z")));
}

#[test]
fn run_all_runs_the_catch_up_window_and_misses_what_is_older() {
    let p = policy(MisfirePolicy::RunAll).with_catch_up_window(Duration::from_secs(600));
    let last = t("2026-11-21T09:00:00Z");
    let now = plus(T10, 30_000);
    let plan = plan_fires(&every(60), &p, Some(last), last, now);
    let expected: Vec<_> = (1..=10).map(|i| plus("2026-11-21T09:50:00Z", i * MINUTE)).collect();
    assert_eq!(plan.run, expected);
    let reason = "misfire=run-all: outside catch_up_window=10m";
    assert_eq!(plan.missed, [missed("2026-11-21T09:01:00Z", "2026-11-21T09:50:00Z", 50, reason)]);
}

#[test]
fn no_plan_runs_more_than_catch_up_max() {
    // One day of downtime of an every-second job under run-all with a one-hour window.
    let p = policy(MisfirePolicy::RunAll);
    let now = plus(T10, 86_400_000);
    let plan = plan_fires(&every(1), &p, Some(t(T10)), t(T10), now);
    assert_eq!(plan.run.len(), 100);
    assert_eq!(plan.run.first(), Some(&plus(T10, 86_400_000 - 99_000)));
    assert_eq!(plan.run.last(), Some(&now));
    assert_eq!(plan.missed.len(), 2);
    let (older, capped) = (&plan.missed[0], &plan.missed[1]);
    assert_eq!(
        (older.first, older.last, older.count),
        (plus(T10, 1_000), plus(T10, 82_799_000), 82_799)
    );
    assert_eq!(older.reason, "misfire=run-all: outside catch_up_window=1h");
    let capped_range = (plus(T10, 82_800_000), plus(T10, 86_300_000), 3_501);
    assert_eq!((capped.first, capped.last, capped.count), capped_range);
    assert_eq!(capped.reason, "misfire=run-all: over catch_up_max=100, the 100 newest ran");
    // The cap holds for fires within the threshold too.
    let p = policy(MisfirePolicy::Skip).with_catch_up_max(10);
    let plan = plan_fires(&every(1), &p, Some(t(T10)), t(T10), plus(T10, 120_000));
    assert_eq!(plan.run.len(), 10);
    let counts: Vec<u64> = plan.missed.iter().map(|range| range.count).collect();
    assert_eq!(counts, [59, 51]);
}

#[test]
fn long_downtime_is_planned_without_enumerating_it() {
    // Ten years of an every-second job: 315 million fires, planned by arithmetic.
    let now = plus(T10, 3_652 * 86_400_000);
    for misfire in [MisfirePolicy::Skip, MisfirePolicy::RunLatest, MisfirePolicy::RunAll] {
        let plan = plan_fires(&every(1), &policy(misfire), Some(t(T10)), t(T10), now);
        let total: u64 =
            plan.missed.iter().map(|range| range.count).sum::<u64>() + plan.run.len() as u64;
        assert_eq!(total, 3_652 * 86_400, "{misfire}");
        assert!(plan.run.len() <= 100, "{misfire}");
    }
}

#[test]
fn cron_ranges_past_the_count_limit_report_a_lower_bound() {
    let schedule = Schedule::cron("* * * * * *", "UTC").unwrap();
    let now = plus(T10, 2 * 86_400_000);
    let plan = plan_fires(&schedule, &policy(MisfirePolicy::Skip), Some(t(T10)), t(T10), now);
    assert_eq!(plan.run.len(), 61);
    let range = &plan.missed[0];
    assert_eq!((range.first, range.last), (plus(T10, 1_000), plus(T10, 2 * 86_400_000 - 61_000)));
    assert_eq!((range.count, range.count_exact), (super::MISSED_COUNT_LIMIT, false));
}

#[test]
fn a_last_fire_after_now_plans_nothing() {
    let plan =
        plan_fires(&every(60), &JobPolicy::default(), Some(plus(T10, MINUTE)), t(T10), t(T10));
    assert_eq!(
        plan,
        FirePlan { next_after_plan: Some(plus(T10, 2 * MINUTE)), ..FirePlan::default() }
    );
}

#[test]
fn a_once_schedule_runs_or_misses_its_single_instant() {
    let once = Schedule::once(plus(T10, MINUTE));
    let late = plus(T10, 10 * MINUTE);
    let plan = plan_fires(&once, &JobPolicy::default(), None, t(T10), late);
    assert_eq!((plan.run.as_slice(), plan.next_after_plan), (&[plus(T10, MINUTE)][..], None));
    let plan = plan_fires(&once, &policy(MisfirePolicy::Skip), None, t(T10), late);
    assert!(plan.run.is_empty());
    assert_eq!(plan.missed.iter().map(|range| range.count).sum::<u64>(), 1);
    let plan = plan_fires(&once, &JobPolicy::default(), Some(plus(T10, MINUTE)), t(T10), late);
    assert_eq!(plan, FirePlan::default());
}

/// Invariants over many plans: runs ascending within the due range and capped, missed ranges
/// ascending, disjoint and before the runs, and every due fire accounted for exactly once.
#[test]
fn every_due_fire_is_run_or_missed_exactly_once() {
    let schedules = [
        every(1),
        every(60),
        every(7_200),
        Schedule::cron("*/10 * 9-17 * * 1-5", "Europe/London").unwrap(),
    ];
    let policies = [
        policy(MisfirePolicy::Skip),
        policy(MisfirePolicy::RunLatest).with_misfire_threshold(Duration::ZERO),
        policy(MisfirePolicy::RunAll).with_catch_up_max(7),
        policy(MisfirePolicy::RunAll).with_catch_up_window(Duration::from_secs(1)),
    ];
    let start = t("2026-03-27T08:59:59Z");
    for schedule in &schedules {
        for p in &policies {
            for gap in [0, 1, 999, 1_000, 59_000, 61_000, 3_600_000, 7_200_001, 3 * 86_400_000 + 17]
            {
                let now = StoreTime::from_millis(start.as_millis() + gap);
                let plan = plan_fires(schedule, p, Some(start), start, now);
                let context = format!("{schedule} {} gap {gap}", p.misfire);
                assert!(plan.run.windows(2).all(|w| w[0] < w[1]), "{context}");
                assert!(plan.run.iter().all(|at| *at > start && *at <= now), "{context}");
                assert!(plan.run.len() <= p.catch_up_max as usize, "{context}");
                let mut previous = start;
                for range in &plan.missed {
                    assert!(range.first > previous && range.first <= range.last, "{context}");
                    assert!(range.count_exact && range.count >= 1, "{context}");
                    previous = range.last;
                }
                assert!(plan.run.first().is_none_or(|first| *first > previous), "{context}");
                let due = schedule.fires_between(start, now).count() as u64;
                let accounted =
                    plan.run.len() as u64 + plan.missed.iter().map(|r| r.count).sum::<u64>();
                assert_eq!(accounted, due, "{context}");
                assert!(plan.next_after_plan.is_some_and(|next| next > now), "{context}");
            }
        }
    }
}
