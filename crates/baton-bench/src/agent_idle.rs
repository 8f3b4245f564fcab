//! `baton bench agent`: the resident memory and CPU of an idle `baton agent`, next to the floor
//! measured in the same run on the same store: a `baton exec` process that only holds and
//! renews one lease.

use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use tokio::process::{Child, Command};

use crate::duration;
use crate::lease::progress;

/// Arguments of `baton bench agent`.
#[derive(Debug, Args)]
pub struct AgentBenchArgs {
    /// Backend URL: sqlite://PATH, postgres://USER@HOST:PORT/DB or mysql://USER@HOST:PORT/DB (migrated first).
    #[arg(long, env = "BATON_BACKEND", value_name = "URL")]
    pub backend: String,
    /// Jobs the agent defines, each firing once an hour.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub jobs: u32,
    /// How long the processes run before they are measured.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = duration)]
    pub warmup: Duration,
    /// How long CPU time is measured.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = duration)]
    pub duration: Duration,
}

/// The targets: resident memory and share of one core.
const MAX_RSS_MB: f64 = 30.0;
const MAX_CPU: f64 = 0.01;

/// One measured process: its resident memory at the end and its share of a core.
struct Usage {
    rss_mb: f64,
    cpu: f64,
}

/// Starts the agent and the floor, lets them settle, and measures both over the same window.
pub(crate) async fn run(args: AgentBenchArgs) -> anyhow::Result<()> {
    let backend = baton::connect(&args.backend).await?;
    backend.migrate().await?;
    let dir = tempfile::tempdir()?;
    let config = dir.path().join("agent.toml");
    std::fs::write(&config, agent_config(&args))?;
    let program = std::env::current_exe().context("finding the baton executable")?;
    let mut agent = spawn(Command::new(&program).arg("agent").arg("--config").arg(&config))?;
    let lease = format!("bench-floor-{:08x}", fastrand::u32(..));
    let mut floor = spawn(Command::new(&program).args([
        "exec",
        "--backend",
        &args.backend,
        "--lock",
        &lease,
        "--",
        "sleep",
        "3600",
    ]))?;
    println!(
        "baton bench agent: an agent with {} hourly jobs on {}; {:?} warm-up, {:?} measured\n",
        args.jobs,
        baton::redact(&args.backend),
        args.warmup,
        args.duration
    );
    progress(&format!("agent: warming up for {:?}", args.warmup));
    tokio::time::sleep(args.warmup).await;
    progress(&format!("agent: measuring for {:?}", args.duration));
    let pids = [pid(&agent)?, pid(&floor)?];
    let before = [cpu_ticks(pids[0])?, cpu_ticks(pids[1])?];
    let began = Instant::now();
    tokio::time::sleep(args.duration).await;
    let window = began.elapsed().as_secs_f64();
    let after = [cpu_ticks(pids[0])?, cpu_ticks(pids[1])?];
    let ticks = ticks_per_second() as f64;
    let usage = |i: usize| -> anyhow::Result<Usage> {
        let used = after[i].saturating_sub(before[i]) as f64 / ticks;
        Ok(Usage { rss_mb: rss_kb(pids[i])? as f64 / 1024.0, cpu: used / window })
    };
    let (agent_usage, floor_usage) = (usage(0)?, usage(1)?);
    let _ = agent.kill().await;
    let _ = floor.kill().await;
    println!("{:<34} {:>10} {:>10}", "process", "RSS", "CPU");
    for (name, usage) in
        [("idle agent", &agent_usage), ("floor: baton exec holding a lease", &floor_usage)]
    {
        println!("{name:<34} {:>7.1} MB {:>9.2}%", usage.rss_mb, usage.cpu * 100.0);
    }
    let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
    println!(
        "\nagent RSS < {MAX_RSS_MB} MB: {}; agent CPU < {:.0}% of a core: {}",
        verdict(agent_usage.rss_mb < MAX_RSS_MB),
        MAX_CPU * 100.0,
        verdict(agent_usage.cpu < MAX_CPU)
    );
    Ok(())
}

/// An agent config with `args.jobs` hourly jobs, serving on a free port.
fn agent_config(args: &AgentBenchArgs) -> String {
    let mut config = format!(
        "backend = \"{}\"\nnode_id = \"bench-agent\"\n[http]\nlisten = \"127.0.0.1:0\"\n",
        args.backend.replace('\\', "\\\\").replace('"', "\\\"")
    );
    for index in 0..args.jobs {
        config.push_str(&format!(
            "[[job]]\nname = \"idle-{index}\"\ncommand = [\"true\"]\ncron = \"{} * * * *\"\n",
            index % 60
        ));
    }
    config
}

/// Starts a measured process, quiet, killed if the bench ends early.
fn spawn(command: &mut Command) -> anyhow::Result<Child> {
    for variable in ["BATON_BACKEND", "BATON_LISTEN", "BATON_LOG"] {
        command.env_remove(variable);
    }
    Ok(command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()?)
}

fn pid(child: &Child) -> anyhow::Result<u32> {
    child.id().context("a measured process exited early")
}

/// User plus system CPU time of `pid`, in clock ticks, from `/proc/PID/stat`.
fn cpu_ticks(pid: u32) -> anyhow::Result<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .with_context(|| format!("process {pid} exited early"))?;
    let fields: Vec<&str> =
        stat.rsplit_once(')').context("/proc stat")?.1.split_whitespace().collect();
    // After the command name: state is field 3; utime and stime are fields 14 and 15.
    let field =
        |n: usize| -> anyhow::Result<u64> { Ok(fields.get(n - 3).context("/proc stat")?.parse()?) };
    Ok(field(14)? + field(15)?)
}

/// Resident memory of `pid` in KiB, from `/proc/PID/status`.
fn rss_kb(pid: u32) -> anyhow::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:")).context("VmRSS")?;
    Ok(line.split_whitespace().nth(1).context("VmRSS")?.parse()?)
}

/// The kernel's clock ticks per second, as /proc reports CPU times in.
fn ticks_per_second() -> u64 {
    nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK).ok().flatten().map_or(100, |t| t as u64)
}
