//! The checks a run must pass: the lease's promises, judged from its events and the store's
//! leader history.

use std::time::Duration;

use super::history::{Event, Run};

/// How soon after every fault healed some holder must be acting.
pub(super) const LEADER_WITHIN: Duration = Duration::from_secs(8);

/// Every broken promise in `run`, one line each; empty when it kept them all.
pub(super) fn violations(run: &Run) -> Vec<String> {
    let mut found = Vec::new();
    tokens_only_grow(run, &mut found);
    no_act_after_a_later_grant(run, &mut found);
    no_stale_write_taken(run, &mut found);
    a_leader_after_calm(run, &mut found);
    found
}

/// Each term the store granted has a greater token than every term before it (I2).
fn tokens_only_grow(run: &Run, found: &mut Vec<String>) {
    for pair in run.grants.windows(2) {
        if pair[1].token <= pair[0].token {
            found.push(format!("token {} granted after token {}", pair[1].token, pair[0].token));
        }
    }
}

/// A holder acts only before the store grants a later term: its own deadline passes before
/// anyone else can start (I1).
fn no_act_after_a_later_grant(run: &Run, found: &mut Vec<String>) {
    for event in &run.events {
        let Event::Acted { at, node, token } = event else { continue };
        let later = run.grants.iter().filter(|grant| grant.token > *token);
        if let Some(grant) = later.min_by_key(|grant| grant.token)
            && *at >= grant.at
        {
            found.push(format!(
                "{node} acted under token {token} at {at} ms, after token {} was granted to {} at \
                 {} ms",
                grant.token, grant.holder, grant.at
            ));
        }
    }
}

/// The fenced resource never takes a write below the highest token it took (I4).
fn no_stale_write_taken(run: &Run, found: &mut Vec<String>) {
    let mut highest = 0;
    for event in &run.events {
        let Event::Wrote { at, node, token, accepted: true } = event else { continue };
        if *token < highest {
            found.push(format!(
                "the resource took {node}'s write under token {token} at {at} ms after one under \
                 token {highest}"
            ));
        }
        highest = highest.max(*token);
    }
}

/// Once every fault healed, some holder acts within [`LEADER_WITHIN`] and until the end.
fn a_leader_after_calm(run: &Run, found: &mut Vec<String>) {
    let from = run.calm_from + i64::try_from(LEADER_WITHIN.as_millis()).unwrap_or(i64::MAX);
    let acted =
        run.events.iter().any(|event| matches!(event, Event::Acted { at, .. } if *at >= from));
    if !acted {
        found.push(format!(
            "no holder acted from {from} ms to {} ms, {LEADER_WITHIN:?} after every fault healed",
            run.ended_at
        ));
    }
}
