//! `baton bench idle`: idle scheduler node processes with few and then many registered jobs
//! (a yearly cron that does not fire while measured), and what each node asks of the store
//! per second: statements from its own statement events, by store call.

use std::time::Duration;

use baton::core::job::all_jobs;
use baton::{LeaseName, StoreTime};

use crate::IdleBenchArgs;
use crate::args::NodeRole;
use crate::bench_jobs;
use crate::cleanup;
use crate::commits::CommitCounter;
use crate::idle_report;
use crate::lease::{emit, progress};
use crate::nodes::{Fleet, NodeReport};
use crate::scenario::Scenario;
use crate::statements::SelfCheck;
use crate::wire::Command;
use crate::writes::WriteCount;

/// How long the nodes may take to register their jobs and start.
const START_LIMIT: Duration = Duration::from_secs(1800);
/// How long the nodes may take to shut down and report.
const STOP_LIMIT: Duration = Duration::from_secs(120);
/// The lease of the scheduler leader (the scheduler's default).
const SCHEDULER_LEASE: &str = "baton-scheduler";

/// One idle measurement.
#[derive(Debug)]
pub(crate) struct IdlePhase {
    /// Jobs registered.
    pub(crate) jobs: u32,
    /// What each node reported.
    pub(crate) nodes: Vec<NodeReport>,
    /// Writing transactions the store counted in the window (all sessions).
    pub(crate) writes: u64,
    /// The scheduler lease's holder at the end of the window.
    pub(crate) leader: Option<String>,
}

/// Everything the scenario measured.
#[derive(Debug)]
pub(crate) struct IdleRun {
    /// The phases, few jobs first.
    pub(crate) phases: Vec<IdlePhase>,
    /// The jobs' cron expression.
    pub(crate) expression: String,
    /// What the store's writing-transaction counter counts.
    pub(crate) writes_label: &'static str,
    /// What one counted statement is.
    pub(crate) check: SelfCheck,
}

/// Runs the idle scenario against `args.backend`.
pub(crate) async fn run(args: IdleBenchArgs) -> anyhow::Result<()> {
    let url = args.backend.as_str();
    let Scenario { backend, target, run } = Scenario::open(url).await?;
    let store = backend.jobs();
    let others = all_jobs(&*store, None).await?.len();
    emit(&idle_report::header(&target, url, &args, &run, others));
    let check = crate::floor::counter_self_check(&target).await?;
    let expression = yearly(store.now().await?);
    let mut commits = CommitCounter::open(&target).await?;
    let writes_label = commits.label();
    let mut phases = Vec::new();
    for jobs in [args.few, args.many] {
        let names: Vec<String> = (0..jobs).map(|i| bench_jobs::idle_name(&run, jobs, i)).collect();
        let outcome = tokio::select! {
            outcome = phase(&args, &run, jobs, &expression, &mut commits) => outcome,
            _ = tokio::signal::ctrl_c() => Err(anyhow::anyhow!("interrupted; the nodes were stopped")),
        };
        progress(&format!("retiring the {jobs} jobs of the phase (they never fire)"));
        cleanup::retire(store.clone(), names).await?;
        phases.push(outcome?);
    }
    commits.close().await?;
    let run = IdleRun { phases, expression, writes_label, check };
    emit(&idle_report::render(&run, &args));
    Ok(())
}

async fn phase(
    args: &IdleBenchArgs,
    run: &str,
    jobs: u32,
    expression: &str,
    commits: &mut CommitCounter,
) -> anyhow::Result<IdlePhase> {
    let url = args.backend.as_str();
    let leases = baton::connect(url).await?.leases();
    progress(&format!("idle: starting {} nodes, each registering {jobs} jobs", args.nodes));
    let extra = ["--jobs".to_string(), jobs.to_string(), "--cron".into(), expression.to_string()];
    let mut fleet = Fleet::spawn(url, run, NodeRole::Idle, args.nodes, &extra)?;
    fleet.ready(START_LIMIT).await?;
    progress(&format!("idle: nodes ready; warming up for {:?}", args.warmup));
    tokio::time::sleep(args.warmup).await;
    let writes_before = commits.writes_now().await?;
    fleet.send(Command::Mark).await?;
    progress(&format!("idle: measuring {jobs} jobs for {:?}", args.duration));
    tokio::time::sleep(args.duration).await;
    fleet.send(Command::Snap).await?;
    let writes = commits.writes_now().await?.saturating_sub(writes_before);
    let lease = leases.get(&LeaseName::new(SCHEDULER_LEASE)?).await?;
    let leader = lease.and_then(|lease| lease.holder).map(|holder| holder.to_string());
    let nodes = fleet.finish(STOP_LIMIT).await?;
    Ok(IdlePhase { jobs, nodes, writes, leader })
}

/// A cron expression firing once a year, on the first of the month six months from `now`
/// (UTC), so that it does not fire while measured.
fn yearly(now: StoreTime) -> String {
    let text = now.to_string();
    let month: u32 = text.get(5..7).and_then(|m| m.parse().ok()).unwrap_or(1);
    format!("0 0 0 1 {} *", (month + 5) % 12 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_yearly_fire_is_half_a_year_away() {
        // 2026-11-21 → May; 2026-06-30 → December.
        assert_eq!(yearly(StoreTime::from_millis(1_795_255_092_000)), "0 0 0 1 5 *");
        assert_eq!(yearly(StoreTime::from_millis(1_782_777_600_000)), "0 0 0 1 12 *");
    }
}
