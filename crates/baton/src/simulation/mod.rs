//! A deterministic simulation of the runtime: nodes electing a leader, or running the
//! scheduler, over the in-memory stores, on a single-threaded runtime whose clock moves only
//! when every task waits, with every latency, fault and jitter drawn from one seed. A seed
//! replays exactly, so a failure found by one is a failure anyone can step through.
//!
//! It runs the runtime's real code, and shows that it would notice the mistakes that matter:
//! each bug of [`crate::planted`] must be caught within the seeds every test run tries.
//! `BATON_SIMULATION_SEEDS` sets how many seeds the promises are checked under (100 by
//! default; a planted bug is looked for in up to five times as many); `BATON_SIMULATION_SEED`
//! replays one.

mod check;
mod clock;
mod clusters;
mod dice;
mod history;
mod leaders;
mod ledger;
mod net;
mod schedulers;
mod world;

use clusters::Member;
use history::Run;
use leaders::Leader;
use schedulers::Worker;
use world::Incarnation;

use crate::planted::{self, Bug};

/// Runs the scenario of `I` for `seed` with `bug` planted, on this thread.
fn simulate<I: Incarnation>(seed: u64, bug: Option<Bug>) -> Run {
    planted::plant(bug);
    // The runtime's jitter draws from this thread's generator.
    fastrand::seed(seed);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("a runtime");
    let run = runtime.block_on(world::run::<I>(seed));
    planted::plant(None);
    run
}

/// The seeds to try: the one named by `BATON_SIMULATION_SEED`, or the first
/// `BATON_SIMULATION_SEEDS` (100 by default).
fn seeds() -> Vec<u64> {
    let number = |name: &str| {
        std::env::var(name).ok().map(|value| {
            value.parse().unwrap_or_else(|_| panic!("{name}={value:?}: expected a whole number"))
        })
    };
    match number("BATON_SIMULATION_SEED") {
        Some(seed) => vec![seed],
        None => (0..number("BATON_SIMULATION_SEEDS").unwrap_or(100)).collect(),
    }
}

/// Fails with the first broken promise of any seed, and the command that replays it; and if
/// the faults moved the work too seldom for the checks to mean much: in more than one seed in
/// ten, three terms or fewer (a seed whose faults happen to miss the holders is fine alone, and
/// so is a single seed replayed).
fn every_seed_keeps_its_promises<I: Incarnation>(test: &str) {
    let seeds = seeds();
    let mut quiet = Vec::new();
    for &seed in &seeds {
        let run = simulate::<I>(seed, None);
        let violations = check::violations(&run);
        assert!(
            violations.is_empty(),
            "seed {seed} broke a promise (replay: BATON_SIMULATION_SEED={seed} cargo test -p \
             baton --lib simulation::{test}):\n{}",
            violations.join("\n")
        );
        if run.terms.len() <= 3 {
            quiet.push(seed);
        }
    }
    assert!(
        seeds.len() < 10 || quiet.len() * 10 <= seeds.len(),
        "the faults granted three terms or fewer in {} of {} seeds, such as {:?}: they should \
         force more",
        quiet.len(),
        seeds.len(),
        &quiet[..quiet.len().min(5)]
    );
}

/// Finds a seed that catches `bug` in the scenario of `I`, trying up to five times as many
/// seeds as the promises are checked under (a bug some seeds catch is found in the first few),
/// and fails naming the bug if none does.
fn caught<I: Incarnation>(bug: Bug) {
    let seeds = match std::env::var("BATON_SIMULATION_SEED") {
        Ok(_) => seeds(),
        Err(_) => (0..seeds().len() as u64 * 5).collect(),
    };
    caught_in::<I>(bug, &seeds);
}

/// Checks that `seed` catches `bug`: for a bug that only a longer search than [`caught`]'s
/// found. With `BATON_SIMULATION_SEEDS` or `BATON_SIMULATION_SEED` set, searches as
/// [`caught`] does instead, which finds the seed again after a change of the scenario.
fn caught_by_seed<I: Incarnation>(bug: Bug, seed: u64) {
    let searched = ["BATON_SIMULATION_SEEDS", "BATON_SIMULATION_SEED"];
    match searched.iter().any(|name| std::env::var(name).is_ok()) {
        true => caught::<I>(bug),
        false => caught_in::<I>(bug, &[seed]),
    }
}

fn caught_in<I: Incarnation>(bug: Bug, seeds: &[u64]) {
    for &seed in seeds {
        if let Some(first) = check::violations(&simulate::<I>(seed, Some(bug))).into_iter().next() {
            println!("{bug:?}, seed {seed}: {first}");
            return;
        }
    }
    panic!("{bug:?} was not caught in {} seeds", seeds.len());
}

#[test]
fn leaders_keep_their_promises_under_every_seed() {
    every_seed_keeps_its_promises::<Leader>("leaders_keep");
}

#[test]
fn schedulers_keep_their_promises_under_every_seed() {
    every_seed_keeps_its_promises::<Worker>("schedulers_keep");
}

#[test]
fn clusters_keep_their_promises_under_every_seed() {
    every_seed_keeps_its_promises::<Member>("clusters_keep");
}

#[test]
fn a_seed_replays_exactly() {
    for seed in seeds().into_iter().take(5) {
        assert_eq!(simulate::<Leader>(seed, None), simulate::<Leader>(seed, None), "seed {seed}");
        assert_eq!(simulate::<Worker>(seed, None), simulate::<Worker>(seed, None), "seed {seed}");
        assert_eq!(simulate::<Member>(seed, None), simulate::<Member>(seed, None), "seed {seed}");
    }
}

#[test]
fn a_deadline_counted_from_the_answer_is_caught() {
    caught::<Leader>(Bug::DeadlineFromReceipt);
    caught::<Worker>(Bug::DeadlineFromReceipt);
}

#[test]
fn a_read_back_trusted_without_a_renewal_is_caught() {
    caught::<Leader>(Bug::TrustReadBack);
}

#[test]
fn acting_until_the_release_is_answered_is_caught() {
    caught::<Leader>(Bug::ActAfterRelease);
}

#[test]
fn a_resource_without_a_fence_is_caught() {
    caught::<Leader>(Bug::NoFence);
    caught::<Worker>(Bug::NoFence);
    caught::<Member>(Bug::NoFence);
}

#[test]
fn misfires_replayed_or_left_without_a_record_after_a_long_downtime_are_caught() {
    caught::<Worker>(Bug::ReplayMissedFires);
    caught::<Worker>(Bug::ForgetMissedFires);
}

/// Seed 327 is the first to catch it since a lapsed claim gives up the incarnation too (which
/// hands back what a lost claim left, when both happen to one node): too far for [`caught`]'s
/// search on every run.
#[test]
fn a_lost_claim_left_with_its_node_is_caught() {
    caught_by_seed::<Member>(Bug::KeepLostClaim, 327);
}

/// Found by the 1,000 seeds of `scripts/nemesis`: seed 393 is the first to catch it, too far
/// for [`caught`]'s search on every run.
#[test]
fn a_lapsed_claim_left_with_its_live_node_is_caught() {
    caught_by_seed::<Member>(Bug::KeepLapsedClaim, 393);
}
