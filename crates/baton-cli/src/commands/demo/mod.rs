//! `baton demo`: three scheduler nodes on one SQLite file, a crash of the leader, the
//! failover, and a verification of the record.

mod node;
mod nodes;
mod report;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use sqlx::{Connection, SqliteConnection};

use crate::cli::DemoArgs;
use nodes::{Event, Nodes};

/// The demo's timing: short, so that the failover shows within seconds.
mod timing {
    use std::time::Duration;

    /// The scheduler lease's TTL (renewed every 600 ms).
    pub const TTL: Duration = Duration::from_secs(3);
    /// How often running executions are heartbeated.
    pub const HEARTBEAT: Duration = Duration::from_millis(300);
    /// A running execution whose heartbeat is older than this is abandoned.
    pub const ABANDON_AFTER: Duration = Duration::from_millis(1500);
}

/// How long the nodes run before the leader is killed, and after.
const BEFORE_CRASH: Duration = Duration::from_secs(7);
const AFTER_FAILOVER: Duration = Duration::from_secs(7);

pub async fn run(args: DemoArgs) -> anyhow::Result<ExitCode> {
    if let (Some(name), Some(url)) = (&args.node, &args.backend) {
        node::run(name, url).await?;
        return Ok(ExitCode::SUCCESS);
    }
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("demo.db");
    let url = format!("sqlite://{}", path.display());
    let backend = baton::connect(&url).await?;
    backend.migrate().await?;
    let mut conn = SqliteConnection::connect(&url).await?;
    sqlx::query(include_str!("demo_ledger.sql")).execute(&mut conn).await?;
    println!("baton demo: three scheduler nodes share one SQLite file ({})", path.display());
    println!("jobs: tick every second; report every 5 seconds, working 1.5 s; each run writes");
    println!("a ledger row through the fenced sink with its attempt's token\n");

    let started = Instant::now();
    let mut nodes = Nodes::start(&url, &["node-a", "node-b", "node-c"]).await?;
    let mut leader = None;
    narrate(&mut nodes, started, BEFORE_CRASH, &mut leader).await;
    let Some(crashed) = leader.clone() else {
        anyhow::bail!("no node became the scheduler leader within {BEFORE_CRASH:?}");
    };
    let crash = Instant::now();
    nodes.kill(&crashed).await;
    println!(
        "{:>6.1}s  ** killed {crashed}, the leader, with SIGKILL: no release, no goodbye **",
        started.elapsed().as_secs_f64()
    );
    let deadline = crash + timing::TTL + Duration::from_secs(10);
    while leader.as_deref() == Some(crashed.as_str()) && Instant::now() < deadline {
        narrate(&mut nodes, started, Duration::from_millis(100), &mut leader).await;
    }
    let failover = crash.elapsed();
    match &leader {
        Some(new) if *new != crashed => println!(
            "{:>6.1}s  ** {new} took over {:.1} s after the crash (TTL {:?}) **",
            started.elapsed().as_secs_f64(),
            failover.as_secs_f64(),
            timing::TTL
        ),
        _ => anyhow::bail!("no node took over within {:?} of the crash", deadline - crash),
    }
    narrate(&mut nodes, started, AFTER_FAILOVER, &mut leader).await;
    println!("{:>6.1}s  stopping the nodes gracefully", started.elapsed().as_secs_f64());
    let rejected = nodes.stop().await;
    let clean = report::verify(&backend, &mut conn, rejected).await?;
    Ok(if clean { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Prints the nodes' events for `length`, tracking the current leader.
async fn narrate(
    nodes: &mut Nodes,
    started: Instant,
    length: Duration,
    leader: &mut Option<String>,
) {
    let until = tokio::time::Instant::now() + length;
    while let Some((node, event)) = nodes.next_until(until).await {
        let at = started.elapsed().as_secs_f64();
        match event {
            Event::Leading(token) => {
                println!("{at:>6.1}s  {node} leads the scheduler (lease token {token})");
                *leader = Some(node);
            }
            Event::Wrote { job, fire, attempt, token } => println!(
                "{at:>6.1}s  {job:<6} fire {}  ran on {node}, attempt {attempt}, token {token}: write accepted",
                clock(&fire)
            ),
            Event::Rejected { job, fire, token, fence } => println!(
                "{at:>6.1}s  {job:<6} fire {}  on {node}: stale token {token} REJECTED by the fence at {fence}",
                clock(&fire)
            ),
        }
    }
}

/// The time of day of an RFC 3339 instant.
fn clock(instant: &str) -> &str {
    instant.split_once('T').map_or(instant, |(_, time)| time.trim_end_matches('Z'))
}
