//! Checking the record against the schedules: every fire a job should have had in a window,
//! compared with the executions recorded for it.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use super::{Execution, ExecutionStatus, Job, Trigger};
use crate::schedule::JobName;
use crate::time::StoreTime;

/// What an audit found. A clean record has no duplicates and no unexplained missing fires.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditReport {
    /// Jobs audited.
    pub jobs: usize,
    /// Fires the schedules called for in the window.
    pub expected: u64,
    /// Expected fires with a record that ran (or runs) at least once.
    pub ran: u64,
    /// Expected fires recorded as skipped or missed, with the policy's reason.
    pub explained: u64,
    /// Expected fires with no record, at or before the instant up to which retention deleted
    /// the job's records: their record is gone, so the audit cannot judge them.
    pub pruned: u64,
    /// Fires that ran more than once at the same time, or succeeded more than once.
    pub duplicates: Vec<Finding>,
    /// Expected fires with no record at all.
    pub missing: Vec<Finding>,
    /// Fires whose first attempt started later than the allowed lateness.
    pub late: Vec<Finding>,
    /// The largest start lag seen (scheduled instant to first start).
    pub max_lag: Duration,
}

impl AuditReport {
    /// Whether the record is clean: no duplicate and no unexplained missing fire.
    pub fn is_clean(&self) -> bool {
        self.duplicates.is_empty() && self.missing.is_empty()
    }
}

/// One fire an audit reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The job.
    pub job: JobName,
    /// The fire's scheduled instant.
    pub scheduled_at: StoreTime,
    /// What is wrong with it.
    pub detail: String,
}

/// Audits the fires due in `[since, until)`: each job's schedule is recomputed (from its
/// registration on; a job never owes fires from before it existed), and compared with the
/// executions recorded for those instants: by the scheduler, by retries, or by an external
/// trigger such as `baton exec --job` (run-now executions are extra and not counted).
///
/// A fire is a duplicate when two of its attempts succeeded, or when two attempts ran at
/// the same time (overlapping start-to-finish intervals, a still-running attempt counting as
/// open-ended). It is missing when nothing records it and no skipped or missed record covers
/// it, and no record of the job was deleted by retention at or after its instant (`pruned`,
/// what [`JobStore::job_pruned_through`](super::JobStore::job_pruned_through) answers): such a
/// fire is counted as pruned instead. It is late when its first start came more than
/// `late_after` after its instant.
pub fn audit(
    jobs: &[Job],
    executions: &[Execution],
    pruned: &[(JobName, StoreTime)],
    since: StoreTime,
    until: StoreTime,
    late_after: Duration,
) -> AuditReport {
    let mut by_fire: HashMap<(&JobName, StoreTime), Vec<&Execution>> = HashMap::new();
    let mut ranges: HashMap<&JobName, Vec<(StoreTime, StoreTime)>> = HashMap::new();
    for execution in executions
        .iter()
        .filter(|e| matches!(e.trigger, Trigger::Schedule | Trigger::Retry | Trigger::External))
    {
        by_fire.entry((&execution.job, execution.scheduled_at)).or_default().push(execution);
        if let Some(through) = execution.covers_through {
            ranges.entry(&execution.job).or_default().push((execution.scheduled_at, through));
        }
    }
    let covered: HashMap<&JobName, BTreeMap<StoreTime, StoreTime>> =
        ranges.into_iter().map(|(job, ranges)| (job, disjoint(ranges))).collect();
    let pruned: HashMap<&JobName, StoreTime> = pruned.iter().map(|(job, at)| (job, *at)).collect();
    let mut report = AuditReport { jobs: jobs.len(), ..AuditReport::default() };
    for job in jobs {
        let name = job.name();
        let after = StoreTime::from_millis(since.as_millis().saturating_sub(1)).max(job.created_at);
        let fires = job.definition.schedule.fires_between(after, until).filter(|at| *at < until);
        for at in fires {
            report.expected += 1;
            match by_fire.get(&(name, at)) {
                Some(attempts) => judge(&mut report, name, at, attempts, late_after),
                None if is_covered(covered.get(name), at) => report.explained += 1,
                None if pruned.get(name).is_some_and(|through| at <= *through) => {
                    report.pruned += 1
                }
                None => report.missing.push(Finding {
                    job: name.clone(),
                    scheduled_at: at,
                    detail: "no execution recorded and no skipped or missed record".into(),
                }),
            }
        }
    }
    report
}

fn judge(
    report: &mut AuditReport,
    job: &JobName,
    at: StoreTime,
    attempts: &[&Execution],
    late_after: Duration,
) {
    let started: Vec<&&Execution> = attempts.iter().filter(|e| e.started_at.is_some()).collect();
    if started.is_empty() {
        let settled = attempts.iter().all(|e| {
            matches!(
                e.status,
                ExecutionStatus::Skipped | ExecutionStatus::Missed | ExecutionStatus::Cancelled
            )
        });
        if settled {
            report.explained += 1
        } else {
            report.ran += 1
        }
        return;
    }
    report.ran += 1;
    let finding = |detail: String| Finding { job: job.clone(), scheduled_at: at, detail };
    let succeeded = attempts.iter().filter(|e| e.status == ExecutionStatus::Succeeded).count();
    if succeeded > 1 {
        report.duplicates.push(finding(format!("{succeeded} attempts succeeded")));
    } else if let Some((a, b)) = overlapping(&started) {
        report.duplicates.push(finding(format!("attempts {a} and {b} ran at the same time")));
    }
    let first = started.iter().filter_map(|e| e.started_at).min().expect("some attempt started");
    let lag = first.saturating_since(at);
    report.max_lag = report.max_lag.max(lag);
    if lag > late_after {
        report
            .late
            .push(finding(format!("first started {:.3}s after its instant", lag.as_secs_f64())));
    }
}

/// Two attempts whose start-to-finish intervals overlap, by attempt number.
fn overlapping(started: &[&&Execution]) -> Option<(u32, u32)> {
    let mut spans: Vec<(i64, i64, u32)> = started
        .iter()
        .map(|e| {
            let start = e.started_at.map_or(i64::MIN, StoreTime::as_millis);
            let end = e.finished_at.map_or(i64::MAX, StoreTime::as_millis);
            (start, end, e.attempt)
        })
        .collect();
    spans.sort_unstable();
    spans.windows(2).find(|pair| pair[1].0 < pair[0].1).map(|pair| (pair[0].2, pair[1].2))
}

/// The instants `ranges` cover, as disjoint ranges keyed by their first instant: a store
/// records no missed run over another's instants, but a record written before it refused them
/// may hold overlapping ones.
fn disjoint(mut ranges: Vec<(StoreTime, StoreTime)>) -> BTreeMap<StoreTime, StoreTime> {
    ranges.sort_unstable();
    let mut merged: BTreeMap<StoreTime, StoreTime> = BTreeMap::new();
    let mut open: Option<(StoreTime, StoreTime)> = None;
    for (first, last) in ranges {
        open = match open {
            Some((start, end)) if first <= end => Some((start, end.max(last))),
            Some((start, end)) => {
                merged.insert(start, end);
                Some((first, last))
            }
            None => Some((first, last)),
        };
    }
    merged.extend(open);
    merged
}

/// Whether one of the disjoint `ranges` covers `at`.
fn is_covered(ranges: Option<&BTreeMap<StoreTime, StoreTime>>, at: StoreTime) -> bool {
    ranges
        .and_then(|ranges| ranges.range(..=at).next_back())
        .is_some_and(|(_, through)| at <= *through)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::job::{FireKey, JobDefinition};
    use crate::schedule::{JobPolicy, Schedule};

    const SECOND: i64 = 1000;

    fn t(seconds: i64) -> StoreTime {
        StoreTime::from_millis(1_800_000_000_000 + seconds * SECOND)
    }

    fn every_second() -> Job {
        let name = JobName::new("audited").unwrap();
        let schedule = Schedule::every(Duration::from_secs(1)).unwrap();
        let definition = JobDefinition { name, schedule, policy: JobPolicy::default() };
        Job {
            id: 1,
            definition,
            paused: false,
            skip_through: None,
            created_at: t(-100),
            updated_at: t(-100),
        }
    }

    fn ran(
        id: i64,
        at: i64,
        attempt: u32,
        status: ExecutionStatus,
        start: i64,
        end: Option<i64>,
    ) -> Execution {
        Execution {
            id,
            job: JobName::new("audited").unwrap(),
            fire_key: FireKey::at(t(at)),
            scheduled_at: t(at),
            attempt,
            trigger: if attempt == 1 { Trigger::Schedule } else { Trigger::Retry },
            status,
            due_at: t(at),
            node: None,
            token: None,
            created_at: t(at),
            started_at: Some(StoreTime::from_millis(t(at).as_millis() + start)),
            heartbeat_at: None,
            finished_at: end.map(|end| StoreTime::from_millis(t(at).as_millis() + end)),
            detail: None,
            covers_through: None,
            covers_count: 1,
            cancel_requested: false,
        }
    }

    #[test]
    fn a_clean_record_has_every_fire_once() {
        let records: Vec<Execution> =
            (0..5).map(|s| ran(s, s, 1, ExecutionStatus::Succeeded, 5, Some(50))).collect();
        let report =
            audit(&[every_second()], &records, &[], t(0), t(5), Duration::from_millis(100));
        assert_eq!((report.expected, report.ran), (5, 5));
        assert!(report.is_clean(), "{report:?}");
        assert!(report.late.is_empty());
        assert_eq!(report.max_lag, Duration::from_millis(5));
    }

    #[test]
    fn missing_duplicate_and_late_fires_are_reported() {
        let records = vec![
            ran(1, 0, 1, ExecutionStatus::Succeeded, 5, Some(50)),
            ran(2, 0, 2, ExecutionStatus::Succeeded, 60, Some(90)),
            ran(3, 1, 1, ExecutionStatus::Abandoned, 5, Some(500)),
            ran(4, 1, 2, ExecutionStatus::Running, 400, None),
            ran(5, 3, 1, ExecutionStatus::Succeeded, 900, Some(950)),
        ];
        let report =
            audit(&[every_second()], &records, &[], t(0), t(4), Duration::from_millis(100));
        let dup: Vec<StoreTime> = report.duplicates.iter().map(|f| f.scheduled_at).collect();
        assert_eq!(dup, vec![t(0), t(1)], "{report:?}");
        let missing: Vec<StoreTime> = report.missing.iter().map(|f| f.scheduled_at).collect();
        assert_eq!(missing, vec![t(2)]);
        assert_eq!(report.late.len(), 1);
        assert_eq!(report.late[0].scheduled_at, t(3));
        assert!(!report.is_clean());
    }

    #[test]
    fn a_missed_range_explains_the_fires_it_covers() {
        let mut range = ran(1, 0, 1, ExecutionStatus::Missed, 0, Some(0));
        range.started_at = None;
        range.covers_through = Some(t(2));
        range.covers_count = 3;
        let records = vec![range, ran(2, 3, 1, ExecutionStatus::Succeeded, 5, Some(9))];
        let report = audit(&[every_second()], &records, &[], t(0), t(5), Duration::from_secs(1));
        assert_eq!((report.expected, report.explained, report.ran), (5, 3, 1));
        assert_eq!(report.missing.len(), 1, "t(4) has no record");
    }

    #[test]
    fn overlapping_missed_runs_explain_every_fire_either_covers() {
        let range = |id: i64, first: i64, last: i64| {
            let mut range = ran(id, first, 1, ExecutionStatus::Missed, 0, Some(0));
            range.started_at = None;
            range.covers_through = Some(t(last));
            range
        };
        let records = vec![range(1, 0, 4), range(2, 1, 2)];
        let report = audit(&[every_second()], &records, &[], t(0), t(5), Duration::from_secs(1));
        assert_eq!((report.expected, report.explained), (5, 5), "{report:?}");
        assert!(report.is_clean(), "{report:?}");
    }

    #[test]
    fn fires_whose_records_retention_deleted_are_pruned_not_missing() {
        let records: Vec<Execution> =
            (3..6).map(|s| ran(s, s, 1, ExecutionStatus::Succeeded, 5, Some(9))).collect();
        let job = every_second();
        let pruned = [(job.name().clone(), t(1))];
        let report = audit(&[job], &records, &pruned, t(0), t(6), Duration::from_secs(1));
        assert_eq!((report.expected, report.ran, report.pruned), (6, 3, 2), "{report:?}");
        let missing: Vec<StoreTime> = report.missing.iter().map(|f| f.scheduled_at).collect();
        assert_eq!(missing, vec![t(2)], "after the watermark a fire without record is missing");
    }

    #[test]
    fn fires_before_the_job_existed_are_not_owed() {
        let mut job = every_second();
        job.created_at = t(2);
        let records = vec![ran(1, 3, 1, ExecutionStatus::Succeeded, 5, Some(9))];
        let report = audit(&[job], &records, &[], t(0), t(4), Duration::from_secs(1));
        assert_eq!(report.expected, 1);
        assert!(report.is_clean(), "{report:?}");
    }
}
