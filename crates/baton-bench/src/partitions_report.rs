//! The report of `baton bench partitions`, as text.

use std::time::Duration;

use crate::partitions::Bench;
use crate::partitions_failover::Failover;
use crate::partitions_single::{Round, Single};
use crate::report::{Table, duration, median, ratio, verdict};
use crate::target::Target;

/// The most wall time the one-node run may take, as a multiple of the plain loop's.
const OVERHEAD: f64 = 1.05;

/// What is run, where.
pub(crate) fn header(target: &Target, url: &str, bench: &Bench) -> String {
    let args = &bench.args;
    let etl = match args.scale_up_only {
        true => String::new(),
        false => format!(
            "The partitioned_etl example's conversion of {} generated rows, cut into {} \
             partitions by line ranges, a checkpoint every {} lines.\n",
            args.rows, args.partitions, args.commit_interval,
        ),
    };
    format!(
        "baton bench partitions on {} ({}), run {}\n{etl}machine: {}\n",
        target.kind(),
        baton::redact(url),
        bench.run,
        crate::machine::describe(),
    )
}

/// The whole report; `bytes` is the input's size.
pub(crate) fn render(
    bench: &Bench,
    bytes: u64,
    single: &Single,
    failover: Option<&Failover>,
) -> String {
    let mut out = one_node(bench, bytes, single);
    if let Some(failover) = failover {
        out.push('\n');
        out.push_str(&killed(bench, failover));
    }
    out.push_str(&format!("\nmachine at the end: {}\n", crate::machine::describe()));
    out
}

/// One figure of a round.
type Figure = fn(&Round) -> Duration;

/// The median of one figure of every round.
fn median_of(single: &Single, figure: Figure) -> Duration {
    Duration::from_secs_f64(median(single.rounds.iter().map(|r| figure(r).as_secs_f64()).collect()))
}

/// One figure of every round, listed.
fn listed(single: &Single, figure: Figure) -> String {
    single.rounds.iter().map(|r| duration(figure(r))).collect::<Vec<_>>().join(", ")
}

/// Part (a).
fn one_node(bench: &Bench, bytes: u64, single: &Single) -> String {
    let mut table = Table::new(&["run", "median", "rounds"]);
    let rows: [(&str, Figure); 5] = [
        ("plain loop: one thread, no coordination", |r| r.plain),
        ("one node process, one partition at a time", |r| r.batch),
        ("  of which planning (the partitioner's pass)", |r| r.planned),
        ("  of which waiting for the first claim", |r| r.first_claim),
        ("  of which claims, conversion, checkpoints", |r| {
            r.batch.saturating_sub(r.planned + r.first_claim)
        }),
    ];
    for (what, figure) in rows {
        table.row(vec![what.into(), duration(median_of(single, figure)), listed(single, figure)]);
    }
    let plain = median_of(single, |r| r.plain).as_secs_f64().max(f64::MIN_POSITIVE);
    let overhead = median_of(single, |r| r.batch).as_secs_f64() / plain;
    let running =
        median_of(single, |r| r.batch.saturating_sub(r.first_claim)).as_secs_f64() / plain;
    let mut out = format!(
        "(a) One node against a plain loop, {} rounds alternating (input {:.0} MB, output {:.0} \
         MB, {} rows rejected)\n",
        bench.args.rounds,
        bytes as f64 / 1e6,
        single.bytes as f64 / 1e6,
        single.rejected,
    );
    out.push_str(&table.render());
    out.push_str(&format!(
        "one node / plain loop: {} (target ≤ {OVERHEAD}) {}\n\
         without the wait for the first claim: {}\n",
        ratio(overhead),
        verdict(overhead <= OVERHEAD),
        ratio(running),
    ));
    out.push_str(&format!(
        "Per batch: {} partitions claimed and completed, {} checkpoints. A batch is timed on the \
         store's clock from just before\nthe start command to its last partition's completion; \
         the leader marked it succeeded a median {} later (its next step, not counted).\n",
        single.partitions,
        single.checkpoints,
        duration(median_of(single, |r| r.marked)),
    ));
    out.push_str(&format!(
        "output byte-identical to the plain loop's in every round: {} (SHA-256 {})\n",
        verdict(single.differing == 0),
        single.hash
    ));
    out
}

/// Part (b).
fn killed(bench: &Bench, failover: &Failover) -> String {
    let bound = failover.unreachable + failover.heartbeat;
    let mut out = format!(
        "(b) {} node processes at the default timing (heartbeat {:?}, unreachable after {:?}); \
         {}, which did not lead,\nkilled with SIGKILL at {}% of the lines checkpointed, holding \
         {} partitions\n",
        bench.args.nodes,
        failover.heartbeat,
        failover.unreachable,
        failover.victim,
        failover.at_percent,
        failover.moved.len(),
    );
    let mut table = Table::new(&[
        "partition",
        "claimed next by",
        "after",
        "from line",
        "killed claim had reached",
        "redone",
    ]);
    for moved in &failover.moved {
        table.row(vec![
            moved.key.clone(),
            moved.to.clone(),
            duration(moved.after),
            moved.resumed.to_string(),
            moved.reached.to_string(),
            moved.redone().to_string(),
        ]);
    }
    out.push_str(&table.render());
    let slowest = failover.moved.iter().map(|m| m.after).max().unwrap_or_default();
    let redone = failover.moved.iter().map(|m| m.redone()).max().unwrap_or_default();
    out.push_str(&format!(
        "time until its partitions ran again elsewhere: at most {} (target ≤ unreachable + \
         heartbeat = {}) {}\n",
        duration(slowest),
        duration(bound),
        verdict(slowest <= bound)
    ));
    out.push_str(&format!(
        "work redone per partition: at most {redone} lines, counted from the killed claim's file \
         (target ≤ one commit interval, {}) {}\n",
        bench.args.commit_interval,
        verdict(redone <= bench.args.commit_interval)
    ));
    out.push_str(&format!(
        "output byte-identical to the single-process run's: {}\nthe whole batch: {}\n",
        verdict(failover.identical),
        duration(failover.total)
    ));
    out
}
