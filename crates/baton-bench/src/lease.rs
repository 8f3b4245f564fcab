//! `baton bench lease`: runs the lease scenarios in order and prints each section of the report
//! as soon as it is measured.

use std::io::Write;

use crate::LeaseBenchArgs;
use crate::accounting::{self, Accounted};
use crate::commits::CommitCounter;
use crate::lease_ops::{self, Race};
use crate::lease_report::HandoverGoal;
use crate::scenario::Scenario;
use crate::statements::SelfCheck;
use crate::target::Target;
use crate::timed::Measured;
use crate::writes::WriteCount;
use crate::{crash, floor, handover, idle, lease_only, lease_plain, lease_report};

/// Connections (and clients) of the concurrent runs.
pub(crate) const CLIENTS: usize = 8;
/// Operations of each kind in the accounting pass.
pub(crate) const ACCOUNTED_OPS: usize = 1000;
/// The floor and the lease cycles alternate in this many rounds, so that a burst of load on
/// the machine hits both alike.
pub(crate) const ROUNDS: u32 = 5;
/// Leases of the small idle run the large one is compared with.
const FEW_IDLE_LEASES: usize = 10;

/// The throughput runs, floor and lease operations side by side.
#[derive(Debug)]
pub(crate) struct Throughput {
    /// What one counted statement is on this store.
    pub(crate) check: SelfCheck,
    /// The runs on one connection.
    pub(crate) single: Series,
    /// The runs on [`CLIENTS`] connections.
    pub(crate) many: Series,
    /// [`CLIENTS`] contenders on one lease.
    pub(crate) race: Race,
    /// Statements and commits per kind of operation.
    pub(crate) accounted: Vec<Accounted>,
}

/// The runs on one number of connections, alternating round by round.
#[derive(Debug, Default)]
pub(crate) struct Series {
    /// The floor.
    pub(crate) floor: Measured,
    /// The lease cycles through baton.
    pub(crate) lease: Measured,
    /// On MySQL, the same cycles' statements driven by a plain loop (`lease_plain`).
    pub(crate) plain: Option<Measured>,
}

/// Runs every lease scenario against the store at `args.backend`.
pub(crate) async fn run(args: LeaseBenchArgs) -> anyhow::Result<()> {
    let url = args.backend.as_str();
    if baton::url_kind(url)? == baton::UrlKind::LeasesOnly {
        return lease_only::run(&args).await;
    }
    let Scenario { target, run, .. } = Scenario::open(url).await?;
    emit(&lease_report::header(&target, url, &args, &run));

    let mut commits = CommitCounter::open(&target).await?;
    floor::create(&target, CLIENTS).await?;
    let measured = throughput(&args, &target, &run, &mut commits).await;
    if let Err(err) = floor::drop_table(&target).await {
        progress(&format!("could not drop the floor table baton_bench_floor: {err:#}"));
    }
    emit(&lease_report::throughput(&measured?, &target));

    handover_and_crash(&args, &run, target.kind(), HandoverGoal::of(&target)).await?;

    idle_load(&args, &run, Some(&mut commits)).await?;
    commits.close().await
}

async fn throughput(
    args: &LeaseBenchArgs,
    target: &Target,
    run: &str,
    commits: &mut CommitCounter,
) -> anyhow::Result<Throughput> {
    let url = args.backend.as_str();
    let length = args.duration;
    let check = floor::counter_self_check(target).await?;
    let mut series = Vec::new();
    let round = length / ROUNDS;
    for clients in [1, CLIENTS] {
        progress(&format!(
            "floor and lease cycles on {clients} connection(s): {ROUNDS} alternating rounds of \
             {round:?} each"
        ));
        let mut runs = Series::default();
        for _ in 0..ROUNDS {
            runs.floor.absorb(floor::measure(target, clients, round, commits).await?);
            runs.lease.absorb(lease_ops::cycles(url, run, clients, round, commits).await?);
            if let Target::Mysql { options } = target {
                let plain = lease_plain::cycles(options, run, clients, round, commits).await?;
                runs.plain.get_or_insert_with(Measured::default).absorb(plain);
            }
        }
        series.push(runs);
    }
    progress(&format!("{CLIENTS} contenders racing on one lease, {length:?}"));
    let race = lease_ops::race(url, run, CLIENTS, length, commits).await?;
    progress(&format!("statements and commits per operation, {ACCOUNTED_OPS} of each kind"));
    let accounted = accounting::accounting(url, run, ACCOUNTED_OPS, commits).await?;
    let many = series.pop().unwrap_or_default();
    let single = series.pop().unwrap_or_default();
    Ok(Throughput { check, single, many, race, accounted })
}

/// The graceful handover and, unless skipped, the crash failover, on a store of `kind`.
pub(crate) async fn handover_and_crash(
    args: &LeaseBenchArgs,
    run: &str,
    kind: &str,
    goal: HandoverGoal,
) -> anyhow::Result<()> {
    let url = args.backend.as_str();
    progress(&format!("graceful handover, {} rounds", args.rounds));
    let handover = handover::run(url, run, args.rounds).await?;
    emit(&lease_report::handover(&handover, kind, goal));
    if args.skip_crash {
        emit(&lease_report::crash_skipped());
        return Ok(());
    }
    let ttl = crash::holders_ttl(url).await?;
    progress(&format!("crash failover, {} rounds of about {ttl:?} each", args.crash_rounds));
    let crash = tokio::select! {
        crash = crash::run(url, run, args.crash_rounds, ttl) => crash?,
        // Dropping the run kills the holder processes it started.
        _ = tokio::signal::ctrl_c() => anyhow::bail!("interrupted; the holder processes were killed"),
    };
    emit(&lease_report::crash(&crash));
    Ok(())
}

/// The idle load with few leases and with `args.idle_leases`, the store's writes counted with
/// `writes` if given.
pub(crate) async fn idle_load(
    args: &LeaseBenchArgs,
    run: &str,
    mut writes: Option<&mut (dyn WriteCount + 'static)>,
) -> anyhow::Result<()> {
    let label = writes.as_deref().map(|count| count.label());
    let mut idle = Vec::new();
    for leases in [FEW_IDLE_LEASES, args.idle_leases as usize] {
        progress(&format!("idle: one elector holding {leases} leases"));
        idle.push(idle::run(&args.backend, run, leases, writes.as_deref_mut()).await?);
    }
    emit(&lease_report::idle(&idle, label));
    Ok(())
}

/// A progress line on stderr.
pub(crate) fn progress(line: &str) {
    eprintln!("bench: {line}");
}

/// A section of the report on stdout, flushed at once.
pub(crate) fn emit(section: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{section}");
    let _ = stdout.flush();
}
