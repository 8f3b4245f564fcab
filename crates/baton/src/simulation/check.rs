//! The checks a run must pass: the promises of leases and of the scheduler, judged from the
//! run's events and the store's records.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use baton_core::cluster::PartitionState;
use baton_core::{ExecutionStatus, MisfirePolicy, StoreTime, Trigger};

use super::history::{Event, Grant, Run};
use super::{clusters, schedulers};

/// How soon after every fault healed some holder must be acting.
pub(super) const ACTING_WITHIN: Duration = Duration::from_secs(8);
/// How much later than its plan a fire's record may be written: two slow round trips to the
/// store and a reading of its clock, with room to spare.
const PLANNING_SLACK: Duration = Duration::from_secs(10);

/// Every broken promise in `run`, one line each; empty when it kept them all.
pub(super) fn violations(run: &Run) -> Vec<String> {
    let mut found = Vec::new();
    let mut grants = run.terms.clone();
    grants.extend(attempts(run));
    grants.extend(partition_claims(run));
    tokens_only_grow(run, &mut found);
    no_act_after_a_later_grant(run, &grants, &mut found);
    no_stale_write_taken(run, &mut found);
    someone_acts_after_the_calm(run, &mut found);
    one_success_per_fire(run, &mut found);
    every_fire_accounted_for(run, &mut found);
    no_fire_later_than_its_policy(run, &mut found);
    every_partition_completed(run, &mut found);
    found
}

/// The attempts of executions, each granted when it started (claimed, or due if claimed
/// ahead).
fn attempts(run: &Run) -> impl Iterator<Item = Grant> + '_ {
    run.executions.iter().filter_map(|execution| {
        Some(Grant {
            key: execution.job.to_string(),
            at: execution.started_at?.as_millis(),
            token: execution.token?.get(),
            holder: execution.node.as_ref()?.to_string(),
        })
    })
}

/// The latest claim of each partition, granted when it was claimed (earlier claims of it are
/// not kept by the store).
fn partition_claims(run: &Run) -> impl Iterator<Item = Grant> + '_ {
    run.partitions.iter().filter_map(|partition| {
        Some(Grant {
            key: clusters::resource(partition.batch, partition.key.as_str()),
            at: partition.claimed_at?.as_millis(),
            token: partition.token?.get(),
            holder: partition.node.as_ref()?.to_string(),
        })
    })
}

/// Each term of a lease has a greater token than every term of it before (I2).
fn tokens_only_grow(run: &Run, found: &mut Vec<String>) {
    let mut last: BTreeMap<&str, u64> = BTreeMap::new();
    for term in &run.terms {
        if let Some(previous) = last.insert(&term.key, term.token)
            && term.token <= previous
        {
            found
                .push(format!("{}: token {} granted after token {previous}", term.key, term.token));
        }
    }
}

/// A holder acts only before the store grants a later claim on the same key: its own deadline
/// passes before anyone else can start (I1).
fn no_act_after_a_later_grant(run: &Run, grants: &[Grant], found: &mut Vec<String>) {
    for event in &run.events {
        let Event::Acted { at, node, key, token } = event else { continue };
        let later = grants.iter().filter(|grant| grant.key == *key && grant.token > *token);
        if let Some(grant) = later.min_by_key(|grant| grant.token)
            && *at >= grant.at
        {
            found.push(format!(
                "{node} acted on {key} under token {token} at {at} ms, after token {} was granted \
                 to {} at {} ms",
                grant.token, grant.holder, grant.at
            ));
        }
    }
}

/// A fenced resource never takes a write below the highest token it took (I4).
fn no_stale_write_taken(run: &Run, found: &mut Vec<String>) {
    let mut highest: BTreeMap<&str, u64> = BTreeMap::new();
    for event in &run.events {
        let Event::Wrote { at, node, key, token, accepted: true } = event else { continue };
        let highest = highest.entry(key).or_default();
        if *token < *highest {
            found.push(format!(
                "{key}'s resource took {node}'s write under token {token} at {at} ms after one \
                 under token {highest}"
            ));
        }
        *highest = (*highest).max(*token);
    }
}

/// Once every fault healed, work that goes on all the time is acting again within
/// [`ACTING_WITHIN`].
fn someone_acts_after_the_calm(run: &Run, found: &mut Vec<String>) {
    if !run.continuous {
        return;
    }
    let from = run.calm_from + millis(ACTING_WITHIN);
    if !run.events.iter().any(|event| matches!(event, Event::Acted { at, .. } if *at >= from)) {
        found.push(format!(
            "nothing acted from {from} ms to {} ms, {ACTING_WITHIN:?} after every fault healed",
            run.ended_at
        ));
    }
}

/// No fire of a job succeeds twice (I3).
fn one_success_per_fire(run: &Run, found: &mut Vec<String>) {
    let mut succeeded = BTreeMap::new();
    for execution in &run.executions {
        if execution.status != ExecutionStatus::Succeeded {
            continue;
        }
        let fire = (execution.job.to_string(), execution.scheduled_at);
        if let Some(first) = succeeded.insert(fire.clone(), execution.id) {
            found.push(format!(
                "{} at {} succeeded twice: executions {first} and {}",
                fire.0, fire.1, execution.id
            ));
        }
    }
}

/// Every fire of every job's schedule, from its first on record until the calm, has a record:
/// run, skipped or missed with a reason, never silently lost; no record stands for an
/// instant its schedule does not have (across a change of the clocks, a wall-clock time
/// skipped fires once, at the end of the gap, and a repeated one once, at its first
/// occurrence); and a job whose schedule has fires after the calm is running again by then.
fn every_fire_accounted_for(run: &Run, found: &mut Vec<String>) {
    let definitions = schedulers::definitions();
    let mut covered: BTreeMap<String, BTreeSet<i64>> = BTreeMap::new();
    for execution in run.executions.iter().filter(|e| e.trigger == Trigger::Schedule) {
        let job = execution.job.to_string();
        let Some((schedule, _)) = definitions.get(job.as_str()) else { continue };
        let at = execution.scheduled_at;
        if schedule.next_after(StoreTime::from_millis(at.as_millis() - 1)) != Some(at) {
            found.push(format!("{job}: a record at {at}, which its schedule does not have"));
        }
        let through = execution.covers_through.unwrap_or(at);
        let instants = covered.entry(job).or_default();
        instants.insert(at.as_millis());
        instants.extend(schedule.fires_between(at, through).map(StoreTime::as_millis));
    }
    let (calm, end) = (StoreTime::from_millis(run.calm_from), StoreTime::from_millis(run.ended_at));
    for (job, instants) in covered {
        let Some((schedule, _)) = definitions.get(job.as_str()) else { continue };
        let first = instants.first().copied().map(StoreTime::from_millis);
        let owed = first.into_iter().flat_map(|first| schedule.fires_between(first, calm));
        let mut gap: Option<(i64, i64)> = None;
        for owed in owed.map(StoreTime::as_millis).filter(|at| !instants.contains(at)) {
            gap = Some(gap.map_or((owed, owed), |(from, _)| (from, owed)));
        }
        if let Some((from, to)) = gap {
            found.push(format!("{job}: no record of fires from {from} to {to} ms"));
        }
        let due_after_calm = schedule
            .next_after(calm)
            .is_some_and(|next| next.as_millis() <= end.as_millis() - millis(ACTING_WITHIN));
        if due_after_calm && instants.last().is_none_or(|last| *last < run.calm_from) {
            found
                .push(format!("{job}: no record of a fire after the calm at {} ms", run.calm_from));
        }
    }
}

/// No fire runs later than its job's misfire policy allows: one found more than
/// `misfire_threshold` late when the leader planned it is missed under `skip`, runs under
/// `run-latest` only if it was the newest fire due, and under `run-all` only if it was within
/// `catch_up_window`. Only first attempts count (a retry is recorded when the last attempt
/// failed); [`PLANNING_SLACK`] allows for the time between the plan and its record.
fn no_fire_later_than_its_policy(run: &Run, found: &mut Vec<String>) {
    let slack = millis(PLANNING_SLACK);
    let definitions = schedulers::definitions();
    for execution in &run.executions {
        let ran = !matches!(execution.status, ExecutionStatus::Missed | ExecutionStatus::Skipped);
        if execution.trigger != Trigger::Schedule || execution.attempt != 1 || !ran {
            continue;
        }
        let job = execution.job.to_string();
        let Some((schedule, policy)) = definitions.get(job.as_str()) else { continue };
        let (at, recorded) = (execution.scheduled_at, execution.created_at);
        let late = recorded.as_millis() - at.as_millis();
        let allowed = match policy.misfire {
            MisfirePolicy::RunAll => policy.misfire_threshold.max(policy.catch_up_window),
            _ => policy.misfire_threshold,
        };
        if late <= millis(allowed) + slack {
            continue;
        }
        let newest = schedule
            .next_after(at)
            .is_none_or(|next| next.as_millis() > recorded.as_millis() - slack);
        if policy.misfire != MisfirePolicy::RunLatest || !newest {
            found.push(format!(
                "{job} at {at} was recorded to run {late} ms late under misfire={}",
                policy.misfire
            ));
        }
    }
}

/// Every partition of every batch started until [`ACTING_WITHIN`] before the end (one is
/// started as the calm begins) is completed by the end: none lost with a node, none failed.
fn every_partition_completed(run: &Run, found: &mut Vec<String>) {
    for partition in &run.partitions {
        if partition.created_at.as_millis() < run.ended_at - millis(ACTING_WITHIN)
            && partition.state != PartitionState::Completed
        {
            found.push(format!(
                "partition {} of batch {} ended {} ({} attempts, error {:?})",
                partition.key,
                partition.batch,
                partition.state,
                partition.attempts,
                partition.error
            ));
        }
    }
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}
