//! Part (b) of `baton bench partitions`: the ETL over several node processes at the default
//! cluster timing; once a third of the lines are checkpointed, the process group of a node
//! that does not lead and runs partitions is killed with SIGKILL.
//!
//! For each partition the killed node held: the time from the kill to its next claim (both on
//! the store's clock: a reading just before the kill, and the claim's `claimed_at`), and the
//! work done again: the lines the killed claim had written to its output file past the
//! checkpoint the next claim resumed from (the killed claim's file is what it had handed to
//! the operating system; up to one write buffer more may have been lost with the process).

use std::time::Duration;

use anyhow::Context;
use baton::StoreTime;
use baton::cluster::{Partition, PartitionState};
use baton::core::cluster::NodeThresholds;
use partitioned_etl::{Checkpoint, Slice, claim_file, complete_lines, partitions};

use crate::lease::progress;
use crate::nodes::Fleet;
use crate::partitions::{Bench, POLL, STOP_LIMIT, cluster_lease, hashed};
use crate::wire::Command;

/// The part of the run this is, naming its job and its output directory.
const PART: &str = "failover";
/// Partitions each node runs at once: all it is given.
const SLOTS: u32 = 16;
/// How long after the kill the killed node's partitions are read: its last writes have landed
/// by then, and no other node can have claimed them yet.
const SETTLE: Duration = Duration::from_millis(500);

/// A partition the killed node held.
#[derive(Debug, Clone)]
pub(crate) struct Moved {
    /// Its key.
    pub(crate) key: String,
    /// From the kill to its next claim.
    pub(crate) after: Duration,
    /// The node that claimed it next.
    pub(crate) to: String,
    /// The line the next claim resumed from.
    pub(crate) resumed: u64,
    /// The line the killed claim had written up to.
    pub(crate) reached: u64,
}

impl Moved {
    /// Lines converted again.
    pub(crate) fn redone(&self) -> u64 {
        self.reached.saturating_sub(self.resumed)
    }
}

/// What part (b) measured.
#[derive(Debug)]
pub(crate) struct Failover {
    /// The killed node.
    pub(crate) victim: String,
    /// The share of the lines checkpointed at the kill, in percent.
    pub(crate) at_percent: u64,
    /// The partitions it held.
    pub(crate) moved: Vec<Moved>,
    /// From the start to the last partition's completion.
    pub(crate) total: Duration,
    /// Whether the output is byte-identical to the single-process run's.
    pub(crate) identical: bool,
    /// The cluster timing the nodes ran with.
    pub(crate) heartbeat: Duration,
    /// The unreachable threshold they ran with.
    pub(crate) unreachable: Duration,
}

/// Runs part (b); `expected` is the SHA-256 of the single-process output.
pub(crate) async fn run(bench: &Bench, expected: &str) -> anyhow::Result<Failover> {
    let (etl, job) = (bench.etl(PART), bench.job(PART)?);
    let nodes = bench.args.nodes;
    progress(&format!("failover: starting {nodes} nodes"));
    let (mut fleet, ids) = bench.nodes(PART, nodes, SLOTS).await?;
    let start = bench.store.now().await?;
    fleet.send(Command::Start).await?;
    let batch = bench.next_batch(&mut fleet, &job, None).await?;
    let (victim, at_percent, killed_at) = kill_mid_run(bench, &mut fleet, &ids, batch).await?;
    progress(&format!("failover: killed {} at {at_percent}% of the lines", ids[victim]));
    tokio::time::sleep(SETTLE).await;
    let held: Vec<Partition> = partitions(&*bench.store, batch)
        .await?
        .into_iter()
        .filter(|p| !p.state.is_final() && on(p, &ids[victim]))
        .collect();
    let parts = bench.final_partitions(&mut fleet, batch).await?;
    let end = parts.iter().filter_map(|p| p.finished_at).max().unwrap_or(start);
    let mut moved = Vec::with_capacity(held.len());
    for before in &held {
        let after = parts.iter().find(|p| p.id == before.id).context("a partition vanished")?;
        moved.push(measure(&etl.batch_dir(batch), before, after, killed_at)?);
    }
    let identical = hashed(&*bench.store, &etl, batch).await?.1 == expected;
    fleet.finish(STOP_LIMIT).await?;
    let defaults = NodeThresholds::default();
    Ok(Failover {
        victim: ids[victim].clone(),
        at_percent,
        moved,
        total: end.saturating_since(start),
        identical,
        heartbeat: defaults.heartbeat_interval(),
        unreachable: defaults.unreachable_after(),
    })
}

/// Waits until a third of the lines are checkpointed and a node that does not lead runs
/// partitions, and kills it; answers its number, the share checkpointed in percent, and the
/// store's time just before the kill.
async fn kill_mid_run(
    bench: &Bench,
    fleet: &mut Fleet,
    ids: &[String],
    batch: i64,
) -> anyhow::Result<(usize, u64, StoreTime)> {
    loop {
        let parts = partitions(&*bench.store, batch).await?;
        anyhow::ensure!(
            !parts.iter().all(|p| p.state.is_final()),
            "the batch finished before a node could be killed mid-run: use more --rows"
        );
        let percent = checkpointed_percent(&parts)?;
        if percent * 3 >= 100
            && let Some(victim) = choose(bench, ids, &parts).await?
        {
            let killed_at = bench.store.now().await?;
            fleet.kill(victim)?;
            return Ok((victim, percent, killed_at));
        }
        fleet.listen(POLL).await?;
    }
}

/// Whether partition `p` is assigned to or claimed by node `id`.
fn on(p: &Partition, id: &str) -> bool {
    p.node.as_ref().is_some_and(|node| node.as_str() == id)
}

/// The share of the lines checkpointed (all of a completed partition's), in percent.
fn checkpointed_percent(parts: &[Partition]) -> anyhow::Result<u64> {
    let (mut done, mut total) = (0, 0);
    for part in parts {
        let slice = Slice::of(part)?;
        total += slice.lines;
        done += match Checkpoint::of(part)? {
            _ if part.state == PartitionState::Completed => slice.lines,
            Some(checkpoint) => checkpoint.at.line - slice.first,
            None => 0,
        };
    }
    Ok(done * 100 / total.max(1))
}

/// The node to kill: of those that do not lead, the one running the most partitions, if any
/// runs one.
async fn choose(
    bench: &Bench,
    ids: &[String],
    parts: &[Partition],
) -> anyhow::Result<Option<usize>> {
    let lease = bench.leases.get(&cluster_lease(&bench.run)?).await?;
    let leader = lease.and_then(|lease| lease.holder).map(|holder| holder.to_string());
    let running = |id: &String| {
        parts.iter().filter(|p| p.state == PartitionState::Claimed && on(p, id)).count()
    };
    let candidates = ids.iter().enumerate().filter(|(_, id)| Some(*id) != leader.as_ref());
    let busiest = candidates.max_by_key(|(_, id)| running(id));
    Ok(busiest.filter(|(_, id)| running(id) > 0).map(|(index, _)| index))
}

/// What became of a partition the killed node held: `before` as read after the kill, `after`
/// once the batch ended.
fn measure(
    dir: &std::path::Path,
    before: &Partition,
    after: &Partition,
    killed_at: StoreTime,
) -> anyhow::Result<Moved> {
    let slice = Slice::of(before)?;
    let resumed = Checkpoint::of(before)?.map_or(slice.first, |checkpoint| checkpoint.at.line);
    // A partition only assigned to the killed node had no claim and no file.
    let reached = match (before.state, before.token) {
        (PartitionState::Claimed, Some(token)) => {
            let file = claim_file(dir, before.key.as_str(), token.get());
            slice.first + complete_lines(&file)?
        }
        _ => resumed,
    };
    let claimed_at = after.claimed_at.context("a completed partition has no claim time")?;
    Ok(Moved {
        key: before.key.to_string(),
        after: claimed_at.saturating_since(killed_at),
        to: after.node.as_ref().map_or_else(String::new, |node| node.to_string()),
        resumed,
        reached,
    })
}
