//! `baton bench cron`: node processes running the scheduler with jobs firing every second.
//!
//! The nodes register the same jobs and run them; once they are warm, a window of whole
//! seconds on the store's clock is measured: the record is audited over it (duplicates and
//! missing fires), the handlers' lags are merged, and the store calls the nodes made in it are
//! tallied. Commits are the store's own count, from just before the window to the nodes' exit,
//! per fire recorded in that span.

use std::collections::HashMap;
use std::time::Duration;

use baton::StoreTime;
use baton::core::job::{
    AuditReport, ExecutionListParams, all_executions, all_jobs, audit, executions_for_audit,
};
use baton::core::{Execution, JobStore, Trigger};
use tokio::time::sleep_until;

use crate::CronBenchArgs;
use crate::args::NodeRole;
use crate::bench_jobs;
use crate::cleanup;
use crate::commits::CommitCounter;
use crate::cron_report;
use crate::lease::{emit, progress};
use crate::nodes::{Fleet, NodeReport};
use crate::scenario::Scenario;
use crate::statements::SelfCheck;
use crate::store_clock::StoreClock;
use crate::target::Target;
use crate::wire::Command;

/// A fire whose handler started later than this after its instant is reported late.
pub(crate) const LATE_AFTER: Duration = Duration::from_secs(1);
/// How long the nodes may take to register their jobs and start.
const START_LIMIT: Duration = Duration::from_secs(600);
/// How long the nodes may take to shut down and report.
const STOP_LIMIT: Duration = Duration::from_secs(120);
/// How long after the window the nodes keep running, so the window's last fires finish.
const TAIL: Duration = Duration::from_millis(1500);
/// How long the nodes may run after the window until the leader has recorded all its fires.
pub(crate) const CATCH_UP: Duration = Duration::from_secs(30);

/// One handler start, joined with its execution record.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fire {
    /// Scheduled instant → handler start, µs (store clock, estimated by the node).
    pub(crate) lag_us: i64,
    /// Scheduled instant → recorded (`created_at`), ms.
    pub(crate) recorded_ms: Option<i64>,
    /// Recorded → claimed (`started_at`), ms.
    pub(crate) claimed_ms: Option<i64>,
}

/// Everything a cron run measured.
#[derive(Debug)]
pub(crate) struct CronRun {
    /// The measured window, on the store's clock.
    pub(crate) since: StoreTime,
    /// Its end (exclusive).
    pub(crate) until: StoreTime,
    /// The audit of the record over the window.
    pub(crate) audit: AuditReport,
    /// The handler starts of fires in the window.
    pub(crate) fires: Vec<Fire>,
    /// What each node reported.
    pub(crate) nodes: Vec<NodeReport>,
    /// Commits the store counted from the mark to the nodes' exit.
    pub(crate) commits: u64,
    /// Fires recorded in that span.
    pub(crate) recorded: u64,
    /// What one counted statement is.
    pub(crate) check: SelfCheck,
    /// The round trip of the parent's store-clock reading.
    pub(crate) clock_round_trip: Duration,
    /// How long after the window the nodes were stopped.
    pub(crate) tail: Duration,
}

/// Runs the cron scenario against `args.backend`.
pub(crate) async fn run(args: CronBenchArgs) -> anyhow::Result<()> {
    let url = args.backend.as_str();
    let Scenario { backend, target, run } = Scenario::open(url).await?;
    let store = backend.jobs();
    let others = all_jobs(&*store, None).await?.len();
    emit(&cron_report::header(&target, url, &args, &run, others));
    let names: Vec<String> = (0..args.jobs).map(|i| bench_jobs::cron_name(&run, i)).collect();
    let outcome = tokio::select! {
        outcome = measure(&args, &target, &run) => outcome,
        _ = tokio::signal::ctrl_c() => Err(anyhow::anyhow!("interrupted; the nodes were stopped")),
    };
    if let Ok(measured) = &outcome {
        emit(&cron_report::render(measured, &args, &target));
    }
    progress(&format!("retiring the {} jobs of the run (they never fire again)", names.len()));
    cleanup::retire(store.clone(), names.clone()).await?;
    cleanup::settle_left(&*store, &target, &names).await?;
    outcome.map(|_| ())
}

async fn measure(args: &CronBenchArgs, target: &Target, run: &str) -> anyhow::Result<CronRun> {
    let url = args.backend.as_str();
    let store = baton::connect(url).await?.jobs();
    let check = crate::floor::counter_self_check(target).await?;
    let mut commits = CommitCounter::open(target).await?;
    let seconds = args.duration.as_secs().max(1);
    let keep = u32::try_from(args.warmup.as_secs() + seconds + 120).unwrap_or(u32::MAX);
    let extra = ["--jobs".to_string(), args.jobs.to_string(), "--keep".into(), keep.to_string()];
    progress(&format!(
        "starting {} nodes, each registering the same {} jobs that fire every second",
        args.nodes, args.jobs
    ));
    let mut fleet = Fleet::spawn(url, run, NodeRole::Cron, args.nodes, &extra)?;
    fleet.ready(START_LIMIT).await?;
    progress(&format!("nodes ready; warming up for {:?}", args.warmup));
    tokio::time::sleep(args.warmup).await;

    let clock = StoreClock::read(&*store).await?;
    let since = StoreTime::from_millis((clock.now().as_millis() / 1000 + 2) * 1000);
    let until = since.saturating_add(Duration::from_secs(seconds));
    let before = |at: StoreTime, ms: i64| StoreTime::from_millis(at.as_millis() - ms);
    sleep_until(clock.local_instant(before(since, 600))).await;
    let mark_time = clock.now();
    let mark = commits.mark().await?;
    sleep_until(clock.local_instant(before(since, 100))).await;
    fleet.send(Command::Mark).await?;
    progress(&format!("measuring the fires of [{since}, {until})"));
    sleep_until(clock.local_instant(before(until, 100))).await;
    fleet.send(Command::Snap).await?;
    sleep_until(clock.local_instant(until.saturating_add(TAIL))).await;
    let prefix = format!("{}cron-", bench_jobs::prefix(run));
    let last = before(until, 1000);
    if !recorded_through(&*store, &prefix, last, args.jobs).await? {
        progress(&format!(
            "the leader had not recorded every fire of {last} {CATCH_UP:?} after the window"
        ));
    }
    let tail = Duration::from_millis(u64::try_from(clock.now().as_millis() - until.as_millis())?);
    progress("stopping the nodes");
    let nodes = fleet.finish(STOP_LIMIT).await?;
    let commits_counted = commits.since(&mark).await?;
    commits.close().await?;

    progress("auditing the record");
    let jobs = bench_jobs::registered(&*store, &prefix).await?;
    let executions = executions_for_audit(&*store, None, since, until).await?;
    let pruned = store.job_pruned_through().await?;
    let report = audit(&jobs, &executions, &pruned, since, until, LATE_AFTER);
    let fires = join(&nodes, &executions, since, until);
    let after_mark =
        ExecutionListParams { since: Some(before(mark_time, 2000)), ..Default::default() };
    let recorded = all_executions(&*store, after_mark)
        .await?
        .iter()
        .filter(|e| e.job.as_str().starts_with(&prefix) && e.created_at >= mark_time)
        .filter(|e| e.trigger == Trigger::Schedule)
        .count() as u64;
    Ok(CronRun {
        since,
        until,
        audit: report,
        fires,
        nodes,
        commits: commits_counted,
        recorded,
        check,
        clock_round_trip: clock.round_trip,
        tail,
    })
}

/// Waits until every job named with `prefix` has a fire recorded at `last` or later (so that a
/// leader running late is not taken for missed fires), for at most [`CATCH_UP`].
async fn recorded_through(
    store: &dyn JobStore,
    prefix: &str,
    last: StoreTime,
    jobs: u32,
) -> anyhow::Result<bool> {
    let deadline = tokio::time::Instant::now() + CATCH_UP;
    loop {
        let fires = store.job_last_fires().await?;
        let done = fires
            .iter()
            .filter(|(job, at)| job.as_str().starts_with(prefix) && *at >= last)
            .count();
        if done >= jobs as usize {
            return Ok(true);
        }
        if tokio::time::Instant::now() >= deadline {
            return Ok(false);
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// The handler starts of fires in `[since, until)`, each with its record's times.
fn join(
    nodes: &[NodeReport],
    executions: &[Execution],
    since: StoreTime,
    until: StoreTime,
) -> Vec<Fire> {
    let by_id: HashMap<i64, &Execution> = executions.iter().map(|e| (e.id, e)).collect();
    let window = since.as_millis()..until.as_millis();
    nodes
        .iter()
        .flat_map(|node| node.lags.iter())
        .filter(|(_, scheduled, _)| window.contains(scheduled))
        .map(|(id, scheduled, lag_us)| {
            let record = by_id.get(id);
            let created = record.map(|e| e.created_at.as_millis());
            let started = record.and_then(|e| e.started_at).map(StoreTime::as_millis);
            Fire {
                lag_us: *lag_us,
                recorded_ms: created.map(|c| c - scheduled),
                claimed_ms: created.zip(started).map(|(c, s)| s - c),
            }
        })
        .collect()
}
