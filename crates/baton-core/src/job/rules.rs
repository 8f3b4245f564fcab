//! Pure decisions about executions, shared by the backends that run them in Rust: what a claim
//! does with a due execution, and when a retry follows a failed attempt.

use std::time::Duration;

use super::{Execution, ExecutionStatus, Job, Trigger};
use crate::schedule::{OverlapPolicy, RetryPolicy};
use crate::time::StoreTime;

/// What a claim does with one due execution.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClaimDecision {
    /// Run it now on the claiming worker.
    Run,
    /// Leave it scheduled for a later claim (an earlier execution of the job still runs).
    Wait,
    /// Leave it scheduled and ask this running execution to stop (overlap `replace`).
    WaitAndCancel(i64),
    /// Settle it without running, with this final status and reason.
    Settle(ExecutionStatus, String),
}

/// What the claim knows about the execution's job at the instant of the claim.
#[derive(Debug, Clone, Copy)]
pub struct JobState<'a> {
    /// The job as stored, or `None` if it is no longer registered.
    pub job: Option<&'a Job>,
    /// The job's execution that runs now, if any (the one with the lowest id when several
    /// do), with its `started_at`.
    pub running: Option<&'a Execution>,
    /// The id of the job's earliest scheduled execution that is due, if any.
    pub first_waiting: Option<i64>,
}

/// Decides what a claim at `now` does with the execution `due`.
///
/// In order: a fire of an unregistered or paused job is skipped; a schedule fire at or before
/// the job's `skip_through` is skipped (`skip-next`, for fires recorded before the operator
/// asked); one later than the starting deadline (measured from `due_at`, so that a retry's
/// backoff does not count against it) is missed; then the overlap policy decides against the
/// job's running execution.
///
/// Overlap `forbid` skips a fire that came due while the running execution ran: one that
/// started before the fire's `due_at`. A fire that came due before the running execution
/// started (fires owed after the scheduler was down and claimed together, the first of which
/// this claim has just started; a fire that waited behind another) overlapped nothing: it
/// waits for that execution to end, and is decided again then.
///
/// An execution not yet due (claimed ahead) runs only where that decision at its due instant
/// could not differ: its job is registered, not paused, does not skip it, and allows overlap
/// or has nothing running and nothing due waiting; otherwise it waits to be decided when due.
pub fn claim_decision(due: &Execution, state: JobState<'_>, now: StoreTime) -> ClaimDecision {
    if due.due_at > now {
        return claim_ahead_decision(due, state);
    }
    let Some(job) = state.job else {
        return ClaimDecision::Settle(ExecutionStatus::Skipped, "job is not registered".into());
    };
    if job.paused {
        return ClaimDecision::Settle(ExecutionStatus::Skipped, "job is paused".into());
    }
    let skip_next = job.skip_through.is_some_and(|through| due.scheduled_at <= through);
    if skip_next && due.trigger == Trigger::Schedule {
        return ClaimDecision::Settle(ExecutionStatus::Skipped, "skip-next".into());
    }
    let policy = &job.definition.policy;
    if let Some(deadline) = policy.starting_deadline {
        let late = now.saturating_since(due.due_at);
        if late > deadline {
            return ClaimDecision::Settle(
                ExecutionStatus::Missed,
                format!(
                    "starting deadline {} passed: due {} ago",
                    seconds(deadline),
                    seconds(late)
                ),
            );
        }
    }
    let Some(running) = state.running.filter(|running| running.id != due.id) else {
        return ClaimDecision::Run;
    };
    match policy.overlap {
        OverlapPolicy::Forbid if started_before(running, due.due_at) => ClaimDecision::Settle(
            ExecutionStatus::Skipped,
            format!("overlap=forbid: execution {} still running", running.id),
        ),
        OverlapPolicy::Forbid => ClaimDecision::Wait,
        OverlapPolicy::Replace if running.cancel_requested => ClaimDecision::Wait,
        OverlapPolicy::Replace => ClaimDecision::WaitAndCancel(running.id),
        OverlapPolicy::BufferOne => match state.first_waiting {
            Some(first) if first != due.id => ClaimDecision::Settle(
                ExecutionStatus::Skipped,
                format!("overlap=buffer-one: execution {first} already waiting"),
            ),
            _ => ClaimDecision::Wait,
        },
        _ => ClaimDecision::Run,
    }
}

/// The decision for an execution claimed before its due instant: run or wait, never settle.
fn claim_ahead_decision(ahead: &Execution, state: JobState<'_>) -> ClaimDecision {
    let Some(job) = state.job.filter(|job| !job.paused) else {
        return ClaimDecision::Wait;
    };
    let skip_next = job.skip_through.is_some_and(|through| ahead.scheduled_at <= through);
    let free = state.running.is_none() && state.first_waiting.is_none();
    let allowed = job.definition.policy.overlap == OverlapPolicy::Allow || free;
    if allowed && !(skip_next && ahead.trigger == Trigger::Schedule) {
        ClaimDecision::Run
    } else {
        ClaimDecision::Wait
    }
}

/// Whether `running` started before `instant`; one whose start is not known has not.
fn started_before(running: &Execution, instant: StoreTime) -> bool {
    running.started_at.is_some_and(|started| started < instant)
}

/// When the next attempt is due after an attempt ended in `status` at `now`, or `None` when
/// the retry policy allows no further attempt.
pub fn retry_due(
    policy: &RetryPolicy,
    status: ExecutionStatus,
    attempt: u32,
    now: StoreTime,
) -> Option<StoreTime> {
    (status.is_retryable() && policy.should_retry(attempt))
        .then(|| now.saturating_add(policy.backoff(attempt)))
}

fn seconds(duration: Duration) -> String {
    format!("{:.1}s", duration.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::{FireKey, JobDefinition};
    use crate::schedule::{JobName, JobPolicy, Schedule};

    const NOW: StoreTime = StoreTime::from_millis(1_800_000_000_000);

    fn job(policy: JobPolicy) -> Job {
        let definition = JobDefinition {
            name: JobName::new("rules").unwrap(),
            schedule: Schedule::every(Duration::from_secs(60)).unwrap(),
            policy,
        };
        let at = StoreTime::from_millis(0);
        Job { id: 1, definition, paused: false, skip_through: None, created_at: at, updated_at: at }
    }

    fn overlap(policy: OverlapPolicy) -> Job {
        job(JobPolicy::default().with_overlap(policy))
    }

    fn execution(id: i64, status: ExecutionStatus, due_secs_ago: u64) -> Execution {
        let due_at = StoreTime::from_millis(NOW.as_millis() - 1_000 * due_secs_ago as i64);
        Execution {
            id,
            job: JobName::new("rules").unwrap(),
            fire_key: FireKey::at(due_at),
            scheduled_at: due_at,
            attempt: 1,
            trigger: Trigger::Schedule,
            status,
            due_at,
            node: None,
            token: None,
            created_at: due_at,
            started_at: None,
            heartbeat_at: None,
            finished_at: None,
            detail: None,
            covers_through: None,
            covers_count: 1,
            cancel_requested: false,
        }
    }

    fn due(id: i64) -> Execution {
        execution(id, ExecutionStatus::Scheduled, 5)
    }

    /// An execution running since it came due `due_secs_ago`.
    fn running(id: i64, due_secs_ago: u64) -> Execution {
        let started = execution(id, ExecutionStatus::Running, due_secs_ago);
        Execution { started_at: Some(started.due_at), ..started }
    }

    fn decide(
        job: &Job,
        due: &Execution,
        running: Option<&Execution>,
        first: i64,
    ) -> ClaimDecision {
        let state = JobState { job: Some(job), running, first_waiting: Some(first) };
        claim_decision(due, state, NOW)
    }

    fn skipped(reason: &str) -> ClaimDecision {
        ClaimDecision::Settle(ExecutionStatus::Skipped, reason.into())
    }

    #[test]
    fn a_fire_of_an_unregistered_or_paused_job_is_skipped() {
        let state = JobState { job: None, running: None, first_waiting: Some(2) };
        assert_eq!(claim_decision(&due(2), state, NOW), skipped("job is not registered"));
        let paused = Job { paused: true, ..overlap(OverlapPolicy::Allow) };
        assert_eq!(decide(&paused, &due(2), None, 2), skipped("job is paused"));
    }

    #[test]
    fn skip_through_skips_schedule_fires_up_to_and_including_it() {
        let fire = due(2);
        let at = |through: StoreTime| Job {
            skip_through: Some(through),
            ..overlap(OverlapPolicy::Allow)
        };
        assert_eq!(decide(&at(fire.scheduled_at), &fire, None, 2), skipped("skip-next"));
        let before = StoreTime::from_millis(fire.scheduled_at.as_millis() - 1);
        assert_eq!(decide(&at(before), &fire, None, 2), ClaimDecision::Run);
        let manual = Execution { trigger: Trigger::Manual, ..fire.clone() };
        assert_eq!(decide(&at(fire.scheduled_at), &manual, None, 2), ClaimDecision::Run);
    }

    #[test]
    fn a_fire_later_than_its_starting_deadline_is_missed() {
        let deadline = JobPolicy::default().with_starting_deadline(Some(Duration::from_secs(30)));
        let job = job(deadline.with_overlap(OverlapPolicy::Allow));
        let late = execution(2, ExecutionStatus::Scheduled, 31);
        let expected = ClaimDecision::Settle(
            ExecutionStatus::Missed,
            "starting deadline 30.0s passed: due 31.0s ago".into(),
        );
        assert_eq!(decide(&job, &late, None, 2), expected);
        let on_time = execution(2, ExecutionStatus::Scheduled, 30);
        assert_eq!(decide(&job, &on_time, None, 2), ClaimDecision::Run);
    }

    #[test]
    fn without_a_running_execution_every_overlap_policy_runs() {
        for policy in OverlapPolicy::ALL {
            assert_eq!(decide(&overlap(*policy), &due(2), None, 2), ClaimDecision::Run, "{policy}");
            let itself = running(2, 5);
            let decision = decide(&overlap(*policy), &due(2), Some(&itself), 2);
            assert_eq!(
                decision,
                ClaimDecision::Run,
                "{policy}: an execution never overlaps itself"
            );
        }
    }

    #[test]
    fn overlap_policies_decide_against_the_running_execution() {
        let running = running(1, 60);
        let forbid = decide(&overlap(OverlapPolicy::Forbid), &due(2), Some(&running), 2);
        assert_eq!(forbid, skipped("overlap=forbid: execution 1 still running"));
        let allow = decide(&overlap(OverlapPolicy::Allow), &due(2), Some(&running), 2);
        assert_eq!(allow, ClaimDecision::Run);
        let replace = decide(&overlap(OverlapPolicy::Replace), &due(2), Some(&running), 2);
        assert_eq!(replace, ClaimDecision::WaitAndCancel(1));
        let asked = Execution { cancel_requested: true, ..running.clone() };
        let replace = decide(&overlap(OverlapPolicy::Replace), &due(2), Some(&asked), 2);
        assert_eq!(replace, ClaimDecision::Wait);
    }

    #[test]
    fn forbid_skips_only_a_fire_that_came_due_while_the_running_execution_ran() {
        let forbid = overlap(OverlapPolicy::Forbid);
        let owed = execution(2, ExecutionStatus::Scheduled, 50);
        let started_since = running(1, 10);
        assert_eq!(
            decide(&forbid, &owed, Some(&started_since), 2),
            ClaimDecision::Wait,
            "a fire owed since before the running execution started waits for it"
        );
        let started_at_its_due = Execution { started_at: Some(owed.due_at), ..started_since };
        let decision = decide(&forbid, &owed, Some(&started_at_its_due), 2);
        assert_eq!(decision, ClaimDecision::Wait, "started at the same instant: not before");
        let unknown = Execution { started_at: None, ..started_at_its_due };
        assert_eq!(decide(&forbid, &owed, Some(&unknown), 2), ClaimDecision::Wait);
        let before = decide(&forbid, &owed, Some(&running(1, 60)), 2);
        assert_eq!(before, skipped("overlap=forbid: execution 1 still running"));
    }

    #[test]
    fn buffer_one_keeps_the_first_waiting_fire_and_skips_the_others() {
        let running = running(1, 60);
        let buffer = overlap(OverlapPolicy::BufferOne);
        assert_eq!(decide(&buffer, &due(2), Some(&running), 2), ClaimDecision::Wait);
        let third = decide(&buffer, &due(3), Some(&running), 2);
        assert_eq!(third, skipped("overlap=buffer-one: execution 2 already waiting"));
    }

    #[test]
    fn a_fire_claimed_ahead_runs_only_where_its_start_cannot_be_refused() {
        let at = NOW.saturating_add(Duration::from_secs(1));
        let ahead = Execution { due_at: at, scheduled_at: at, ..due(2) };
        let running = running(1, 60);
        let state = |job, running, first_waiting| JobState { job, running, first_waiting };
        let (allow, forbid) = (overlap(OverlapPolicy::Allow), overlap(OverlapPolicy::Forbid));
        let decide_ahead = |state| claim_decision(&ahead, state, NOW);
        assert_eq!(decide_ahead(state(Some(&forbid), None, None)), ClaimDecision::Run);
        assert_eq!(decide_ahead(state(Some(&allow), Some(&running), Some(3))), ClaimDecision::Run);
        assert_eq!(decide_ahead(state(Some(&forbid), Some(&running), None)), ClaimDecision::Wait);
        assert_eq!(decide_ahead(state(Some(&forbid), None, Some(3))), ClaimDecision::Wait);
        assert_eq!(decide_ahead(state(None, None, None)), ClaimDecision::Wait, "unregistered");
        let paused = Job { paused: true, ..allow.clone() };
        assert_eq!(decide_ahead(state(Some(&paused), None, None)), ClaimDecision::Wait);
        let skipping = Job { skip_through: Some(at), ..allow.clone() };
        assert_eq!(decide_ahead(state(Some(&skipping), None, None)), ClaimDecision::Wait);
    }

    #[test]
    fn retries_follow_failures_with_backoff_until_the_attempts_run_out() {
        let retry = RetryPolicy::default()
            .with_max_attempts(3)
            .with_backoff(Duration::from_secs(1), Duration::from_secs(60));
        let after = |secs: u64| Some(NOW.saturating_add(Duration::from_secs(secs)));
        assert_eq!(retry_due(&retry, ExecutionStatus::Failed, 1, NOW), after(1));
        assert_eq!(retry_due(&retry, ExecutionStatus::TimedOut, 2, NOW), after(2));
        assert_eq!(retry_due(&retry, ExecutionStatus::Abandoned, 3, NOW), None);
        assert_eq!(retry_due(&retry, ExecutionStatus::Abandoned, 1, NOW), after(1));
        for status in ExecutionStatus::ALL.into_iter().filter(|s| !s.is_retryable()) {
            assert_eq!(retry_due(&retry, status, 1, NOW), None, "{status}");
        }
        assert_eq!(retry_due(&RetryPolicy::none(), ExecutionStatus::Failed, 1, NOW), None);
    }
}
