//! A deterministic simulation of the elector: nodes campaigning for one lease over the
//! in-memory store, on a single-threaded runtime whose clock moves only when every task
//! waits, with every latency, fault and jitter drawn from one seed. A seed replays exactly, so
//! a failure found by one is a failure anyone can step through.
//!
//! It runs the elector's real code, and shows that it would notice the mistakes that matter:
//! each bug of [`crate::planted`] must be caught within the seeds every test run tries.
//! `BATON_SIMULATION_SEEDS` sets how many seeds to try (100 by default); `BATON_SIMULATION_SEED`
//! replays one.

mod check;
mod clock;
mod history;
mod ledger;
mod net;
mod world;

use history::Run;

use crate::planted::{self, Bug};

/// Runs the simulation of `seed` with `bug` planted, on this thread.
fn simulate(seed: u64, bug: Option<Bug>) -> Run {
    planted::plant(bug);
    // The elector's jitter draws from this thread's generator.
    fastrand::seed(seed);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("a runtime");
    let run = runtime.block_on(world::run(seed));
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

#[test]
fn every_seed_keeps_the_lease_promises() {
    for seed in seeds() {
        let run = simulate(seed, None);
        let violations = check::violations(&run);
        assert!(
            violations.is_empty(),
            "seed {seed} broke a promise (replay: BATON_SIMULATION_SEED={seed} cargo test -p \
             baton --lib simulation):\n{}",
            violations.join("\n")
        );
        assert!(
            run.grants.len() > 3,
            "seed {seed}: only {} terms were granted; the faults should force more",
            run.grants.len()
        );
    }
}

#[test]
fn a_seed_replays_exactly() {
    for seed in seeds().into_iter().take(10) {
        assert_eq!(simulate(seed, None), simulate(seed, None), "seed {seed} ran differently");
    }
}

/// The first seed that catches `bug`, with what it caught, or a failure naming the bug.
fn caught(bug: Bug) -> (u64, String) {
    let seeds = seeds();
    for &seed in &seeds {
        if let Some(first) = check::violations(&simulate(seed, Some(bug))).into_iter().next() {
            return (seed, first);
        }
    }
    panic!("{bug:?} was not caught in {} seeds", seeds.len());
}

#[test]
fn a_deadline_counted_from_the_answer_is_caught() {
    let (seed, violation) = caught(Bug::DeadlineFromReceipt);
    println!("seed {seed}: {violation}");
}

#[test]
fn a_read_back_trusted_without_a_renewal_is_caught() {
    let (seed, violation) = caught(Bug::TrustReadBack);
    println!("seed {seed}: {violation}");
}

#[test]
fn acting_until_the_release_is_answered_is_caught() {
    let (seed, violation) = caught(Bug::ActAfterRelease);
    println!("seed {seed}: {violation}");
}

#[test]
fn a_resource_without_a_fence_is_caught() {
    let (seed, violation) = caught(Bug::NoFence);
    println!("seed {seed}: {violation}");
}
