//! Part (a) of `baton bench partitions`: the ETL over one node process running one partition
//! at a time, against the same conversion in a plain loop in this process (one thread, no
//! coordination), alternating round by round so that a burst of load hits both alike.
//!
//! A plain loop is timed on the monotonic clock around the call. A batch is timed on the
//! store's clock, from a reading just before node 0 is told to start it to the last
//! partition's completion, and split at the batch's creation (after the partitioner's pass
//! over the input) and at its first claim (the claim loop polls every heartbeat interval).
//! The leader marks the batch succeeded at its next step after that, reported apart.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;
use baton::core::schedule::JobName;

use partitioned_etl::{Slice, finished, plain, sha256};

use crate::lease::progress;
use crate::nodes::Fleet;
use crate::partitions::{Bench, POLL, STOP_LIMIT, hashed};
use crate::wire::Command;

/// The part of the run this is, naming its job and its output directory.
const PART: &str = "single";

/// One round of part (a).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Round {
    /// The plain loop's wall time.
    pub(crate) plain: Duration,
    /// The batch's wall time: the three parts below.
    pub(crate) batch: Duration,
    /// From the start to the batch's creation: the partitioner's pass over the input.
    pub(crate) planned: Duration,
    /// From the batch's creation to its first claim.
    pub(crate) first_claim: Duration,
    /// From the last partition's completion to the batch marked succeeded.
    pub(crate) marked: Duration,
}

/// What part (a) measured.
#[derive(Debug, Default)]
pub(crate) struct Single {
    /// Round by round.
    pub(crate) rounds: Vec<Round>,
    /// The SHA-256 of the plain loop's output.
    pub(crate) hash: String,
    /// Rounds whose batch output differed from the plain loop's.
    pub(crate) differing: u32,
    /// Partitions per batch.
    pub(crate) partitions: usize,
    /// Checkpoints per batch.
    pub(crate) checkpoints: u64,
    /// Rows rejected, of the input's.
    pub(crate) rejected: u64,
    /// Output bytes.
    pub(crate) bytes: u64,
}

/// Runs part (a).
pub(crate) async fn run(bench: &Bench) -> anyhow::Result<Single> {
    let (etl, job) = (bench.etl(PART), bench.job(PART)?);
    let (mut fleet, _) = bench.nodes(PART, 1, 1).await?;
    let reference = bench.dir.join("plain.csv");
    let mut single = Single::default();
    let mut last = None;
    for number in 1..=bench.args.rounds {
        let plain = plain_loop(bench, &reference).await?;
        if number == 1 {
            let files = vec![reference.clone()];
            single.hash = tokio::task::spawn_blocking(move || sha256(&files)).await??;
        }
        let batch = one_batch(bench, &mut fleet, &job, last, plain, &mut single).await?;
        last = Some(batch);
        let (output, hash) = hashed(&*bench.store, &etl, batch).await?;
        let same = hash == single.hash;
        single.differing += u32::from(!same);
        (single.rejected, single.bytes) = (output.rejected, output.bytes);
        std::fs::remove_dir_all(etl.batch_dir(batch))?;
        let round = single.rounds.last().copied().context("a round was measured")?;
        progress(&format!(
            "single {number}/{}: plain loop {:.2} s, one node {:.2} s (first claim after {:.2} \
             s), output {}",
            bench.args.rounds,
            round.plain.as_secs_f64(),
            round.batch.as_secs_f64(),
            (round.planned + round.first_claim).as_secs_f64(),
            if same { "identical" } else { "DIFFERS" }
        ));
    }
    fleet.finish(STOP_LIMIT).await?;
    Ok(single)
}

/// Runs the plain loop into `reference`; answers how long it took.
async fn plain_loop(bench: &Bench, reference: &Path) -> anyhow::Result<Duration> {
    let (input, output) = (bench.input(), reference.to_path_buf());
    let began = Instant::now();
    tokio::task::spawn_blocking(move || plain(&input, &output)).await??;
    Ok(began.elapsed())
}

/// Has node 0 start a batch of `job` and waits for its end; adds the round to `single` (with
/// the plain loop's time `plain`) and answers the batch.
async fn one_batch(
    bench: &Bench,
    fleet: &mut Fleet,
    job: &JobName,
    after: Option<i64>,
    plain: Duration,
    single: &mut Single,
) -> anyhow::Result<i64> {
    let start = bench.store.now().await?;
    fleet.send(Command::Start).await?;
    let batch = bench.next_batch(fleet, job, after).await?;
    let parts = bench.final_partitions(fleet, batch).await?;
    let end = parts.iter().filter_map(|p| p.finished_at).max().unwrap_or(start);
    let first = parts.iter().filter_map(|p| p.claimed_at).min().unwrap_or(end);
    let marked = finished(&*bench.store, batch, POLL).await?;
    single.rounds.push(Round {
        plain,
        batch: end.saturating_since(start),
        planned: marked.created_at.saturating_since(start),
        first_claim: first.saturating_since(marked.created_at),
        marked: marked.finished_at.unwrap_or(end).saturating_since(end),
    });
    single.partitions = parts.len();
    single.checkpoints = 0;
    for part in &parts {
        // One after every commit interval but the last.
        let lines = Slice::of(part)?.lines;
        single.checkpoints += lines.div_ceil(bench.args.commit_interval).saturating_sub(1);
    }
    Ok(batch)
}
