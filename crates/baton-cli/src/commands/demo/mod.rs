//! `baton demo`: three agents on one SQLite file run a job every second, a slower job and a
//! partitioned job; the demo kills the scheduler leader, pauses a node with a running command
//! until the command's fire is retried elsewhere, so that its late write meets the fence, and
//! ends with a verification of the record.

mod agents;
mod config;
mod pause;
mod report;
mod watch;
mod writer;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{Connection, SqliteConnection};

use crate::cli::{DemoArgs, DemoStep};
use agents::Agents;
use config::{Stores, timing};
use watch::Watch;

/// How long the cluster runs before the leader is killed, then before a node is paused, then
/// before the demo stops.
const BEFORE_CRASH: Duration = Duration::from_secs(10);
const BEFORE_PAUSE: Duration = Duration::from_secs(6);
const BEFORE_STOP: Duration = Duration::from_secs(8);

/// Runs the demo, or one of the commands its agents run.
pub async fn run(args: DemoArgs) -> anyhow::Result<ExitCode> {
    match args.step {
        Some(DemoStep::Write { ledger, work }) => writer::write(&ledger, work).await,
        Some(DemoStep::Partition { ledger, step }) => writer::partition(&ledger, step).await,
        None => demonstrate(args.keep_running, args.backend).await,
    }
}

async fn demonstrate(keep_running: bool, backend: Option<String>) -> anyhow::Result<ExitCode> {
    let dir = tempfile::Builder::new().prefix("baton-demo-").tempdir()?;
    let stores = match &backend {
        Some(url) => Stores { backend: url.clone(), ledger: dir.path().join("ledger.db") },
        // One file holds both, so that a paused agent holding its write lock shows.
        None => {
            let path = dir.path().join("demo.db");
            Stores { backend: format!("sqlite://{}", path.display()), ledger: path }
        }
    };
    let backend = open_unused(&stores.backend).await?;
    let path = stores.ledger.clone();
    let mut ledger = open_ledger(&path).await?;
    sqlx::raw_sql(include_str!("demo_ledger.sql")).execute(&mut ledger).await?;

    let mut agents = Agents::start(dir.path(), &stores, &["node-a", "node-b", "node-c"]).await?;
    match stores.backend.starts_with("sqlite://") {
        true => {
            println!("baton demo: three agents share one SQLite file in {}", dir.path().display())
        }
        false => println!(
            "baton demo: three agents share {}; their ledger and logs are in {}",
            baton::redact(&stores.backend),
            dir.path().display()
        ),
    }
    for agent in &agents.running {
        println!("  {}: dashboard http://127.0.0.1:{}/", agent.name, agent.port);
    }
    println!("jobs: tick every second; report every 5 s (1.5 s of work); etl, 6 partitions, every");
    println!(
        "20 s. Each writes to a ledger through a fence of its fire, with its attempt's token.\n"
    );
    let outcome = scenario(&mut agents, backend.clone(), (ledger, &path), keep_running).await;
    println!("stopping the agents gracefully");
    agents.stop().await;
    let failover = outcome?;
    let mut ledger = open_ledger(&path).await?;
    let clean = report::verify(&backend, &mut ledger, failover).await?;
    Ok(if clean { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Opens and migrates the store at `url`, which must hold no job yet: the verification counts
/// every fire on record.
async fn open_unused(url: &str) -> anyhow::Result<baton::Backend> {
    if baton::url_kind(url)? == baton::UrlKind::LeasesOnly {
        anyhow::bail!(
            "{} holds leases only: the demo needs a store for everything (postgres:// or mysql://)",
            baton::redact(url)
        );
    }
    let backend = baton::connect(url).await?;
    backend.migrate().await?;
    let jobs = backend.jobs().job_list(baton::core::job::JobListParams::default()).await?;
    if !jobs.items.is_empty() {
        anyhow::bail!(
            "{} already has jobs: the demo verifies every fire on record, so it needs a \
             database baton has not used yet",
            baton::redact(url)
        );
    }
    Ok(backend)
}

/// The ledger's SQLite file, created when missing, with the fences of baton's SQLite schema
/// (`baton::sqlite::fence`) that its writers check.
async fn open_ledger(path: &std::path::Path) -> anyhow::Result<SqliteConnection> {
    let url = format!("sqlite://{}", path.display());
    baton::sqlite::SqliteBackend::connect(&url).await?.migrate().await?;
    let options = SqliteConnectOptions::new().filename(path);
    Ok(SqliteConnection::connect_with(&options).await?)
}

/// The scripted run: the crash of the leader, then a paused writer; answers the failover time.
async fn scenario(
    agents: &mut Agents,
    backend: baton::Backend,
    (ledger, ledger_path): (SqliteConnection, &std::path::Path),
    keep_running: bool,
) -> anyhow::Result<Duration> {
    let mut watch = Watch::new(backend.clone(), ledger)?;
    watch.run_for(BEFORE_CRASH).await?;
    let crashed = watch.current_leader().await?.context("no agent leads the scheduler")?;
    let crash = Instant::now();
    agents.kill(&crashed).await;
    println!(
        "{}  ** killed {crashed}, the leader, with SIGKILL: no release, no goodbye **",
        watch.at()
    );
    let failover = loop {
        watch.poll().await?;
        match watch.current_leader().await? {
            Some(new) if new != crashed => {
                let took = crash.elapsed();
                println!(
                    "{}  ** {new} took over {:.1} s after the crash (lease TTL {:?}) **",
                    watch.at(),
                    took.as_secs_f64(),
                    timing::TTL
                );
                break took;
            }
            _ if crash.elapsed() > timing::TTL * 4 => {
                anyhow::bail!("no agent took over within {:?} of the crash", timing::TTL * 4)
            }
            _ => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    };
    watch.run_for(BEFORE_PAUSE).await?;
    pause::stale_write(agents, &backend, ledger_path, &mut watch).await?;
    watch.run_for(BEFORE_STOP).await?;
    if keep_running {
        println!("{}  running until Ctrl-C (the dashboards stay up)", watch.at());
        let interrupted = tokio::signal::ctrl_c();
        tokio::pin!(interrupted);
        loop {
            tokio::select! {
                _ = &mut interrupted => break,
                polled = watch.run_for(Duration::from_secs(1)) => polled?,
            }
        }
    }
    Ok(failover)
}
