//! `baton bench executions`: executions recorded up front, drained by worker processes, next
//! to the single-row UPDATE commit floor on 8 connections measured in the same run.
//!
//! Each mode gets jobs and executions of its own; the floor is measured before each mode and
//! once more at the end, and its rate is the median over all its slices.

use std::time::{Duration, Instant};

use crate::ExecutionsBenchArgs;
use crate::args::NodeRole;
use crate::cleanup;
use crate::commits::CommitCounter;
use crate::exec_record::{self, Verified};
use crate::executions_report;
use crate::floor;
use crate::lease::{CLIENTS, emit, progress};
use crate::nodes::{Fleet, NodeReport};
use crate::scenario::Scenario;
use crate::statements::SelfCheck;
use crate::target::Target;
use crate::timed::Measured;
use crate::wire::Command;

/// How long the nodes may take to start.
const START_LIMIT: Duration = Duration::from_secs(120);
/// How long the nodes may take to shut down and report.
const STOP_LIMIT: Duration = Duration::from_secs(120);
/// How often the drain's progress is printed.
const PROGRESS_EVERY: Duration = Duration::from_secs(5);

/// One mode, drained.
#[derive(Debug)]
pub(crate) struct Drained {
    /// The node role that drained it.
    pub(crate) role: NodeRole,
    /// Executions recorded and drained.
    pub(crate) count: u32,
    /// Completions of all nodes: (ms since the start, count), ascending.
    pub(crate) completed: Vec<(u64, u64)>,
    /// From the start command to the last completion reported (or the limit), as the parent
    /// saw it.
    pub(crate) drain: Duration,
    /// Whether every execution completed within the limit.
    pub(crate) complete: bool,
    /// What each node reported.
    pub(crate) nodes: Vec<NodeReport>,
    /// Commits the store counted from just before the start to the nodes' exit.
    pub(crate) commits: u64,
    /// What the record shows afterwards.
    pub(crate) verified: Verified,
}

/// Everything the scenario measured.
#[derive(Debug)]
pub(crate) struct ExecRun {
    /// The floor, all rounds.
    pub(crate) floor: Measured,
    /// The modes, in order.
    pub(crate) modes: Vec<Drained>,
    /// What one counted statement is.
    pub(crate) check: SelfCheck,
}

/// Runs the executions scenario against `args.backend`.
pub(crate) async fn run(args: ExecutionsBenchArgs) -> anyhow::Result<()> {
    let url = args.backend.as_str();
    let Scenario { backend: _, target, run } = Scenario::open(url).await?;
    emit(&executions_report::header(&target, url, &args, &run));
    let check = floor::counter_self_check(&target).await?;
    let mut commits = CommitCounter::open(&target).await?;
    floor::create(&target, CLIENTS).await?;
    let outcome = tokio::select! {
        outcome = all_modes(&args, &target, &run, &mut commits) => outcome,
        _ = tokio::signal::ctrl_c() => Err(anyhow::anyhow!("interrupted; the nodes were stopped")),
    };
    if let Err(err) = floor::drop_table(&target).await {
        progress(&format!("could not drop the floor table baton_bench_floor: {err:#}"));
    }
    commits.close().await?;
    let (floor, modes) = outcome?;
    emit(&executions_report::render(&ExecRun { floor, modes, check }, &args, &target));
    Ok(())
}

async fn all_modes(
    args: &ExecutionsBenchArgs,
    target: &Target,
    run: &str,
    commits: &mut CommitCounter,
) -> anyhow::Result<(Measured, Vec<Drained>)> {
    let roles = [NodeRole::ExecDefault, NodeRole::ExecBatched];
    let mut floor = Measured::default();
    let mut modes = Vec::new();
    for role in roles {
        progress(&format!("floor on {CLIENTS} connections for {:?}", args.floor_duration));
        floor.absorb(floor::measure(target, CLIENTS, args.floor_duration, commits).await?);
        modes.push(drain(args, target, run, role, commits).await?);
    }
    progress(&format!("floor on {CLIENTS} connections for {:?}", args.floor_duration));
    floor.absorb(floor::measure(target, CLIENTS, args.floor_duration, commits).await?);
    Ok((floor, modes))
}

async fn drain(
    args: &ExecutionsBenchArgs,
    target: &Target,
    run: &str,
    role: NodeRole,
    commits: &mut CommitCounter,
) -> anyhow::Result<Drained> {
    let url = args.backend.as_str();
    let mode = role.exec_mode().unwrap_or("default");
    let store = baton::connect(url).await?.jobs();
    progress(&format!("{mode}: recording {} executions over {} jobs", args.executions, args.jobs));
    let jobs = exec_record::prepare(&*store, run, mode, args.jobs, args.executions).await?;
    let extra =
        ["--jobs".to_string(), args.jobs.to_string(), "--batch".into(), args.batch.to_string()];
    let mut fleet = Fleet::spawn(url, run, role, args.nodes, &extra)?;
    fleet.ready(START_LIMIT).await?;
    let mark = commits.mark().await?;
    fleet.send(Command::Start).await?;
    let began = Instant::now();
    progress(&format!("{mode}: {} worker processes draining", args.nodes));
    let mut shown = Instant::now();
    while fleet.done() < u64::from(args.executions) && began.elapsed() < args.limit {
        fleet.listen(Duration::from_secs(1)).await?;
        if shown.elapsed() >= PROGRESS_EVERY {
            progress(&format!("{mode}:   {} completed", fleet.done()));
            shown = Instant::now();
        }
    }
    let complete = fleet.done() >= u64::from(args.executions);
    if !complete {
        progress(&format!(
            "{mode}: only {} of {} executions completed within --limit {:?}; stopping there",
            fleet.done(),
            args.executions,
            args.limit
        ));
    }
    let drain = began.elapsed();
    fleet.send(Command::Snap).await?;
    let nodes = fleet.finish(STOP_LIMIT).await?;
    let commits = commits.since(&mark).await?;
    progress(&format!("{mode}: stopped after {drain:?}; reading the record back"));
    let verified = exec_record::verify(&*store, &jobs).await?;
    if !complete {
        let names: Vec<String> = jobs.iter().map(|job| job.to_string()).collect();
        cleanup::settle_left(&*store, target, &names).await?;
    }
    Ok(Drained {
        role,
        count: args.executions,
        completed: merge(&nodes),
        drain,
        complete,
        nodes,
        commits,
        verified,
    })
}

/// The nodes' completions, added up millisecond by millisecond.
fn merge(nodes: &[NodeReport]) -> Vec<(u64, u64)> {
    let mut merged = std::collections::BTreeMap::new();
    for (offset, count) in nodes.iter().flat_map(|node| node.completed.iter()) {
        *merged.entry(*offset).or_insert(0) += count;
    }
    merged.into_iter().collect()
}
