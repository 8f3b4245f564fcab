//! Misfire decisions: which due fires run and which are recorded as missed.

use std::time::Duration;

use super::Schedule;
use super::format;
use super::job_policy::JobPolicy;
use super::policy::MisfirePolicy;
use crate::time::StoreTime;

/// The most cron fires counted one by one for a single missed range.
pub const MISSED_COUNT_LIMIT: u64 = 100_000;

/// Consecutive fires recorded as missed for one reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissedRange {
    /// The oldest fire of the range.
    pub first: StoreTime,
    /// The newest fire of the range.
    pub last: StoreTime,
    /// How many fires the range holds (a lower bound when `count_exact` is false).
    pub count: u64,
    /// Whether `count` is exact; false only for a cron range of more than
    /// [`MISSED_COUNT_LIMIT`] fires.
    pub count_exact: bool,
    /// Why, naming the policy: `misfire=run-latest: superseded by 2026-11-21T10:00:00Z`.
    pub reason: String,
}

/// The outcome of [`plan_fires`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FirePlan {
    /// Fires to record as scheduled, ascending.
    pub run: Vec<StoreTime>,
    /// Fires to record as missed, ascending, all older than the first fire in `run`.
    pub missed: Vec<MissedRange>,
    /// The first fire after `now` (and after `last_fire`): when to plan again.
    pub next_after_plan: Option<StoreTime>,
}

impl FirePlan {
    /// The newest fire this plan decided about (ran or missed), to store as the job's last fire.
    pub fn last_planned(&self) -> Option<StoreTime> {
        let missed = self.missed.iter().map(|range| range.last).max();
        self.run.last().copied().max(missed)
    }
}

/// Decides which fires due by `now` run and which are recorded as missed: a pure decision
/// over a schedule, a policy, the last recorded fire and the current store time.
///
/// The fires due are those in `(last_fire, now]`, or `(first_seen, now]` for a job that has
/// never fired: a new job never back-fills before its registration (a one-off job registered
/// after its instant therefore never fires; reject such definitions up front). A fire at most
/// `misfire_threshold` late simply runs late. Older ones follow the [`MisfirePolicy`]:
///
/// - `skip`: they are all missed.
/// - `run-latest`: one execution covers them. If some fire within the threshold runs anyway,
///   that is the one; otherwise the newest misfired fire runs. The others are missed,
///   "superseded by" the run that covers them.
/// - `run-all`: those within `catch_up_window` of `now` run; older ones are missed.
///
/// Whatever the policy, one plan runs at most `catch_up_max` fires, the newest; the older
/// ones that would have run are missed as "over catch_up_max".
///
/// The work is bounded: the fires that run are found by stepping back from `now`
/// (`catch_up_max` + 1 steps at most); missed fires are reported as at most two ranges, found
/// with a constant number of steps. Counting a range is arithmetic for interval and one-off
/// schedules; for cron it enumerates at most [`MISSED_COUNT_LIMIT`] fires and otherwise reports
/// that many with `count_exact: false` (a lower bound; `first` and `last` are always exact).
pub fn plan_fires(
    schedule: &Schedule,
    policy: &JobPolicy,
    last_fire: Option<StoreTime>,
    first_seen: StoreTime,
    now: StoreTime,
) -> FirePlan {
    let start = last_fire.unwrap_or(first_seen);
    let next_after_plan = schedule.next_after(start.max(now));
    let due = |at: &StoreTime| *at > start;
    let Some(latest) = schedule.prev_before(after(now)).filter(due) else {
        return FirePlan { next_after_plan, ..FirePlan::default() };
    };
    let horizon = match policy.misfire {
        MisfirePolicy::RunAll => policy.misfire_threshold.max(policy.catch_up_window),
        _ => policy.misfire_threshold,
    };
    let eligible_from = before(now, horizon);
    let cap = usize::try_from(policy.catch_up_max.max(1)).unwrap_or(usize::MAX);

    // Step back from the latest fire over those that run.
    let mut run = Vec::new();
    let mut older = Some(latest);
    while let Some(at) = older.filter(|at| due(at) && *at >= eligible_from && run.len() < cap) {
        run.push(at);
        older = schedule.prev_before(at);
    }
    if run.is_empty() && policy.misfire == MisfirePolicy::RunLatest {
        run.push(latest);
        older = schedule.prev_before(latest);
    }
    run.reverse();

    let mut missed = Vec::new();
    let mut policy_last = older.filter(due);
    if let Some(last) = policy_last.filter(|at| *at >= eligible_from) {
        // Eligible by time, but beyond the cap.
        let first = schedule.next_after(
            start.max(StoreTime::from_millis(eligible_from.as_millis().saturating_sub(1))),
        );
        let n = policy.catch_up_max;
        let reason =
            format!("misfire={}: over catch_up_max={n}, the {n} newest ran", policy.misfire);
        missed.extend(range(schedule, first, last, reason));
        policy_last = schedule.prev_before(eligible_from).filter(due);
    }
    if let Some(last) = policy_last {
        let reason = match policy.misfire {
            MisfirePolicy::Skip => format!(
                "misfire=skip: more than misfire_threshold={} late",
                format::duration(policy.misfire_threshold)
            ),
            MisfirePolicy::RunAll => {
                format!("misfire=run-all: outside catch_up_window={}", format::duration(horizon))
            }
            _ => format!(
                "misfire={}: superseded by {}",
                policy.misfire,
                run.first().map_or_else(|| "nothing".to_string(), |at| format::instant(*at))
            ),
        };
        let first = schedule.next_after(start);
        missed.splice(0..0, range(schedule, first, last, reason));
    }
    FirePlan { run, missed, next_after_plan }
}

/// The missed range `[first, last]`, counted.
fn range(
    schedule: &Schedule,
    first: Option<StoreTime>,
    last: StoreTime,
    reason: String,
) -> Option<MissedRange> {
    let first = first.filter(|first| *first <= last)?;
    let (count, count_exact) =
        schedule.count_between(before(first, Duration::from_millis(1)), last, MISSED_COUNT_LIMIT);
    Some(MissedRange { first, last, count, count_exact, reason })
}

/// The instant just after `at`, so that `prev_before(after(at))` may return `at` itself.
fn after(at: StoreTime) -> StoreTime {
    StoreTime::from_millis(at.as_millis().saturating_add(1))
}

/// `at` minus `by`, saturating.
fn before(at: StoreTime, by: Duration) -> StoreTime {
    let by = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
    StoreTime::from_millis(at.as_millis().saturating_sub(by))
}
