//! The checks a run must pass: the promises of leases and of the scheduler, judged from the
//! run's events and the store's records.

use std::collections::BTreeMap;
use std::time::Duration;

use baton_core::ExecutionStatus;
use baton_core::cluster::PartitionState;

use super::history::{Event, Grant, Run};
use super::{clusters, schedulers};

/// How soon after every fault healed some holder must be acting.
pub(super) const ACTING_WITHIN: Duration = Duration::from_secs(8);

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

/// Every fire of every job until the calm has a record: run, skipped or missed with a reason,
/// never silently lost.
fn every_fire_accounted_for(run: &Run, found: &mut Vec<String>) {
    let mut covered: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for execution in &run.executions {
        let job = execution.job.to_string();
        let Some(interval) = schedulers::interval(&job) else { continue };
        let step = millis(interval);
        let first = execution.scheduled_at.as_millis();
        let last = execution.covers_through.map_or(first, |through| through.as_millis());
        covered.entry(job).or_default().extend((first..=last).step_by(step as usize));
    }
    for (job, mut instants) in covered {
        instants.sort_unstable();
        instants.dedup();
        let step = schedulers::interval(&job).map(millis).unwrap_or_default();
        for pair in instants.windows(2) {
            if pair[1] - pair[0] != step {
                found.push(format!(
                    "{job}: no record of the fires from {} to {} ms",
                    pair[0], pair[1]
                ));
            }
        }
        if instants.last().is_none_or(|last| *last < run.calm_from) {
            found
                .push(format!("{job}: no record of a fire after the calm at {} ms", run.calm_from));
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
