//! Part (c) of `baton bench partitions`: a batch follows the cluster as it grows. Each round
//! runs the digest job (equal CPU-bound partitions, see `digest`) twice, each node running one
//! partition at a time: on three node processes from the start, then on one node process
//! joined by two more once a tenth of the partitions completed. The job assigns by
//! `scale-up`, so the joiners take their share of the pending partitions at the leader's next
//! step.
//!
//! A batch is timed on the store's clock, from its creation to its last partition's
//! completion. Every partition must complete exactly once (one claim each, as only pending
//! partitions move) with the result a plain loop computes.

use std::time::{Duration, Instant};

use anyhow::Context;
use baton::StoreTime;
use baton::cluster::Partition;
use baton::core::cluster::{MoveReason, PartitionMovesParams};
use baton::core::schedule::JobName;
use partitioned_etl::partitions;

use crate::args::NodeRole;
use crate::digest::{Digest, results};
use crate::lease::progress;
use crate::nodes::Fleet;
use crate::partitions::{Bench, POLL, START_LIMIT, STOP_LIMIT};
use crate::report::{Table, duration, median, ratio, verdict};
use crate::wire::Command;

/// Nodes of the reference run, and of the grown cluster.
const NODES: u32 = 3;
/// The share of partitions completed, in percent, at which the two nodes join.
const JOIN_AT_PERCENT: usize = 10;
/// The most the grown cluster's batch may take, as a multiple of the reference's.
const TARGET: f64 = 1.15;

/// One round of part (c).
#[derive(Debug, Clone)]
pub(crate) struct Round {
    /// The batch on three nodes from the start.
    pub(crate) three: Duration,
    /// The batch on one node joined by two.
    pub(crate) grown: Duration,
    /// Partitions completed when the two joined.
    pub(crate) completed_at_join: usize,
    /// From the later joiner's registration to the first move to it.
    pub(crate) join_to_move: Option<Duration>,
    /// The grown batch's moves: join, steal, failover.
    pub(crate) moves: [usize; 3],
    /// Whether every partition of both batches completed once, with the plain loop's result.
    pub(crate) exact: bool,
}

/// What part (c) measured.
#[derive(Debug)]
pub(crate) struct ScaleUp {
    /// The work.
    pub(crate) digest: Digest,
    /// The plain loop over every partition on one thread.
    pub(crate) plain: Duration,
    /// Round by round.
    pub(crate) rounds: Vec<Round>,
}

/// Runs part (c).
pub(crate) async fn run(bench: &Bench) -> anyhow::Result<ScaleUp> {
    let args = &bench.args;
    let digest = Digest {
        partitions: args.scale_up_partitions,
        steps: args.scale_up_work.saturating_mul(1_000_000),
    };
    progress("scale-up: the plain loop");
    let began = Instant::now();
    let expected = tokio::task::spawn_blocking(move || digest.plain()).await?;
    let plain = began.elapsed();
    let mut rounds = Vec::new();
    for number in 1..=args.scale_up_rounds {
        let three = three_nodes(bench, digest, &expected, number).await?;
        let round = grown(bench, digest, &expected, number, three).await?;
        progress(&format!(
            "scale-up {number}/{}: three nodes {:.2} s, one joined by two {:.2} s ({}), {} join \
             moves, every partition once with the plain loop's result: {}",
            args.scale_up_rounds,
            round.three.as_secs_f64(),
            round.grown.as_secs_f64(),
            ratio(round.grown.as_secs_f64() / round.three.as_secs_f64().max(f64::MIN_POSITIVE)),
            round.moves[0],
            round.exact,
        ));
        rounds.push(round);
    }
    Ok(ScaleUp { digest, plain, rounds })
}

/// The job of one batch of the run.
fn job(bench: &Bench, part: &str, number: u32) -> anyhow::Result<JobName> {
    Ok(JobName::new(format!("digest-{}-{part}-{number}", bench.run))?)
}

/// Starts `count` digest nodes numbered from `first` for `job`, and waits until they are ready.
async fn nodes(
    bench: &Bench,
    digest: Digest,
    job: &JobName,
    first: u32,
    count: u32,
) -> anyhow::Result<(Fleet, Vec<String>)> {
    let extra = [
        "--digest-job".to_string(),
        job.to_string(),
        "--digest-partitions".into(),
        digest.partitions.to_string(),
        "--digest-steps".into(),
        digest.steps.to_string(),
    ];
    let url = &bench.args.backend;
    let mut fleet = Fleet::spawn_from(url, &bench.run, NodeRole::Digest, first, count, &extra)?;
    let ids = fleet.ready(START_LIMIT).await?;
    Ok((fleet, ids))
}

/// The reference: the batch on three nodes from the start; answers its time.
async fn three_nodes(
    bench: &Bench,
    digest: Digest,
    expected: &[String],
    number: u32,
) -> anyhow::Result<(Duration, bool)> {
    let job = job(bench, "three", number)?;
    let (mut fleet, _) = nodes(bench, digest, &job, 0, NODES).await?;
    fleet.send(Command::Start).await?;
    let batch = bench.next_batch(&mut fleet, &job, None).await?;
    let parts = bench.final_partitions(&mut fleet, batch).await?;
    fleet.finish(STOP_LIMIT).await?;
    let time = elapsed(bench, batch, &parts).await?;
    Ok((time, exact(&parts, expected)))
}

/// The batch on one node, joined by two once a tenth of the partitions completed.
async fn grown(
    bench: &Bench,
    digest: Digest,
    expected: &[String],
    number: u32,
    (three, three_exact): (Duration, bool),
) -> anyhow::Result<Round> {
    let job = job(bench, "grown", number)?;
    let (mut first, _) = nodes(bench, digest, &job, 0, 1).await?;
    first.send(Command::Start).await?;
    let batch = bench.next_batch(&mut first, &job, None).await?;
    let completed_at_join = loop {
        let parts = partitions(&*bench.store, batch).await?;
        let completed = parts.iter().filter(|p| p.state.is_final()).count();
        anyhow::ensure!(completed < parts.len(), "the batch ended before the others joined");
        if completed * 100 >= parts.len() * JOIN_AT_PERCENT {
            break completed;
        }
        first.listen(POLL).await?;
    };
    let (joiners, joined) = nodes(bench, digest, &job, 1, NODES - 1).await?;
    let parts = bench.final_partitions(&mut first, batch).await?;
    first.finish(STOP_LIMIT).await?;
    joiners.finish(STOP_LIMIT).await?;
    let grown = elapsed(bench, batch, &parts).await?;
    let (moves, join_to_move) = moves(bench, batch, &joined).await?;
    Ok(Round {
        three,
        grown,
        completed_at_join,
        join_to_move,
        moves,
        exact: three_exact && exact(&parts, expected),
    })
}

/// From the batch's creation to its last partition's completion, on the store's clock.
async fn elapsed(bench: &Bench, batch: i64, parts: &[Partition]) -> anyhow::Result<Duration> {
    let record = bench.store.batch_get(batch).await?.context("the batch vanished")?;
    let end = parts.iter().filter_map(|p| p.finished_at).max().unwrap_or(record.created_at);
    Ok(end.saturating_since(record.created_at))
}

/// Whether every partition completed after one claim with the plain loop's result.
fn exact(parts: &[Partition], expected: &[String]) -> bool {
    let once = parts.iter().all(|p| p.attempts == 1);
    let results = results(parts);
    once && results.len() == expected.len()
        && results.iter().zip(expected).all(|(got, want)| got.as_deref() == Some(want.as_str()))
}

/// The batch's moves by reason (join, steal, failover), and the time from the later of the
/// joiners' registrations to the first move.
async fn moves(
    bench: &Bench,
    batch: i64,
    joiners: &[String],
) -> anyhow::Result<([usize; 3], Option<Duration>)> {
    let mut counts = [0; 3];
    let mut first: Option<StoreTime> = None;
    let mut params = PartitionMovesParams { limit: 1000, ..PartitionMovesParams::new(batch) };
    loop {
        let page = bench.store.partition_moves(params.clone()).await?;
        for moved in &page.items {
            let slot = match moved.reason {
                MoveReason::Join => 0,
                MoveReason::Steal => 1,
                _ => 2,
            };
            counts[slot] += 1;
            first = Some(first.map_or(moved.at, |at| at.min(moved.at)));
        }
        match page.next {
            Some(next) => params.after = Some(next),
            None => break,
        }
    }
    let nodes = bench.store.node_list(Default::default()).await?.items;
    let registered = nodes
        .iter()
        .filter(|node| joiners.contains(&node.id.to_string()))
        .map(|node| node.started_at)
        .max();
    let latency = first.zip(registered).map(|(moved, joined)| moved.saturating_since(joined));
    Ok((counts, latency))
}

/// One figure of a round.
type Figure = fn(&Round) -> Duration;

/// The report of part (c).
pub(crate) fn render(scale_up: &ScaleUp) -> String {
    let digest = scale_up.digest;
    let rounds = &scale_up.rounds;
    let seconds = |f: Figure| -> Vec<f64> { rounds.iter().map(|r| f(r).as_secs_f64()).collect() };
    let listed = |f: Figure| -> String {
        rounds.iter().map(|r| duration(f(r))).collect::<Vec<_>>().join(", ")
    };
    let mut table = Table::new(&["run", "median", "rounds"]);
    let rows: [(&str, Figure); 2] = [
        ("three nodes from the start", |r| r.three),
        ("one node, joined by two at 10 %", |r| r.grown),
    ];
    for (what, figure) in rows {
        table.row(vec![
            what.into(),
            duration(Duration::from_secs_f64(median(seconds(figure)))),
            listed(figure),
        ]);
    }
    let ratios: Vec<f64> = rounds
        .iter()
        .map(|r| r.grown.as_secs_f64() / r.three.as_secs_f64().max(f64::MIN_POSITIVE))
        .collect();
    let ratio_median = median(ratios.clone());
    let latencies: Vec<String> =
        rounds.iter().map(|r| r.join_to_move.map_or("-".into(), duration)).collect();
    let at_join: Vec<String> = rounds.iter().map(|r| r.completed_at_join.to_string()).collect();
    let moves: Vec<String> =
        rounds.iter().map(|r| format!("{}/{}/{}", r.moves[0], r.moves[1], r.moves[2])).collect();
    let mut out = format!(
        "(c) Scale-up: {} equal partitions of {} mixing steps (plain loop over all of them on one \
         thread: {}), `scale-up` strategy,\neach node one partition at a time; {} rounds, each \
         the batch on {NODES} nodes from the start, then on one node joined by {} more\n",
        digest.partitions,
        digest.steps,
        duration(scale_up.plain),
        rounds.len(),
        NODES - 1,
    );
    out.push_str(&table.render());
    out.push_str(&format!(
        "joined / three from the start: {} (rounds: {}; target ≤ {TARGET}) {}\n\
         partitions completed when the two joined: {}; from the later registration to the \
         first move: {}\n\
         moves join/steal/failover: {}\n\
         every partition completed once, with the plain loop's result, in every batch: {}\n",
        ratio(ratio_median),
        ratios.iter().map(|r| ratio(*r)).collect::<Vec<_>>().join(", "),
        verdict(ratio_median <= TARGET),
        at_join.join(", "),
        latencies.join(", "),
        moves.join(", "),
        verdict(rounds.iter().all(|r| r.exact)),
    ));
    out
}
