//! Crash failover: `baton exec --on-held wait` holder processes; the one holding the lease is
//! killed with SIGKILL and the time until the waiting one starts its command is measured.
//!
//! Each holder runs in its own process group; `baton exec` starts its command in a process
//! group of its own too, so the command reports its process id (`echo acquired $$`) and both
//! groups are killed. Every process started here is killed when its handle is dropped, also
//! when the run fails.

use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::Context;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;

/// The TTL the holders run with where the store grants it: the design's default.
const TTL: Duration = Duration::from_secs(10);
/// How long a holder may take to acquire a free lease, or to report that it waits.
const START_LIMIT: Duration = Duration::from_secs(30);
/// The command each holder runs while it holds the lease.
const HOLDING: &str = "echo acquired $$; exec sleep 3600";

/// The failover times of a run.
#[derive(Debug, Clone)]
pub(crate) struct Crash {
    /// The holders' TTL.
    pub(crate) ttl: Duration,
    /// One time per round, from the SIGKILL to the next holder's command starting.
    pub(crate) failovers: Vec<Duration>,
    /// The holders' retry period.
    pub(crate) retry_period: Duration,
    /// Its jitter, as a fraction.
    pub(crate) jitter: f64,
}

/// What a holder process reported.
#[derive(Debug)]
enum Event {
    /// Its command started: it holds the lease. Carries the command's process group.
    Acquired(usize, Pid, Instant),
    /// Its first attempt was refused and it waits for the lease.
    Waiting(usize),
    /// Its output ended (it exited); carries its last line on stderr.
    Ended(usize, String),
}

/// A running `baton exec`; dropping it kills its process group and its command's.
struct Holder {
    child: Child,
    group: Pid,
    command_group: Option<Pid>,
}

impl Holder {
    fn kill(&mut self) {
        for group in [Some(self.group), self.command_group.take()].into_iter().flatten() {
            let _ = killpg(group, Signal::SIGKILL);
        }
    }
}

impl Drop for Holder {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Starts holder number `id` and forwards what it prints as events.
fn spawn(
    url: &str,
    lease: &str,
    ttl: Duration,
    id: usize,
    events: &mpsc::UnboundedSender<Event>,
) -> anyhow::Result<Holder> {
    let program = std::env::current_exe().context("finding the baton executable")?;
    let mut child = Command::new(&program)
        .args(["exec", "--backend", url, "--lock", lease, "--on-held", "wait"])
        .args(["--ttl", &format!("{}ms", ttl.as_millis()), "--"])
        .args(["sh", "-c", HOLDING])
        .env_remove("BATON_LOG")
        .process_group(0)
        .kill_on_drop(true)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {}", program.display()))?;
    let pid = child.id().context("a holder exited at once")?;
    let group = Pid::from_raw(i32::try_from(pid)?);
    let stdout = child.stdout.take().context("no stdout pipe")?;
    let stderr = child.stderr.take().context("no stderr pipe")?;
    let sender = events.clone();
    tokio::spawn(async move {
        let mut lines = BufReader::new(stdout).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let at = Instant::now();
            let pid = line.strip_prefix("acquired ").and_then(|pid| pid.trim().parse::<i32>().ok());
            if let Some(pid) = pid {
                let _ = sender.send(Event::Acquired(id, Pid::from_raw(pid), at));
            }
        }
    });
    let sender = events.clone();
    tokio::spawn(async move {
        let mut lines = BufReader::new(stderr).lines();
        let mut last = String::new();
        while let Ok(Some(line)) = lines.next_line().await {
            if line.ends_with("; waiting") {
                let _ = sender.send(Event::Waiting(id));
            }
            last = line;
        }
        let _ = sender.send(Event::Ended(id, last));
    });
    Ok(Holder { child, group, command_group: None })
}

/// Waits for the next event that `pick` accepts; the exit of a holder numbered `alive_from` or
/// higher (the ones not killed on purpose) fails.
async fn expect<T>(
    events: &mut mpsc::UnboundedReceiver<Event>,
    alive_from: usize,
    limit: Duration,
    what: &str,
    mut pick: impl FnMut(&Event) -> Option<T>,
) -> anyhow::Result<T> {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        let event = tokio::time::timeout_at(deadline, events.recv())
            .await
            .map_err(|_| anyhow::anyhow!("timed out after {limit:?} waiting for {what}"))?
            .context("the holders' output ended")?;
        if let Some(found) = pick(&event) {
            return Ok(found);
        }
        if let Event::Ended(id, last) = event
            && id >= alive_from
        {
            anyhow::bail!("holder {id} exited while waiting for {what}: {last}");
        }
    }
}

/// Starts holder `id` and waits until it reports that it waits for the lease.
async fn start_waiter(
    url: &str,
    lease: &str,
    ttl: Duration,
    id: usize,
    events: &mpsc::UnboundedSender<Event>,
    receiver: &mut mpsc::UnboundedReceiver<Event>,
) -> anyhow::Result<Holder> {
    let holder = spawn(url, lease, ttl, id, events)?;
    let what = format!("holder {id} to wait for the lease");
    expect(receiver, id.saturating_sub(1), START_LIMIT, &what, |e| {
        matches!(e, Event::Waiting(i) if *i == id).then_some(())
    })
    .await?;
    Ok(holder)
}

/// The holders' TTL on the store at `url`: [`TTL`], or the store's granted TTL nearest to it.
pub(crate) async fn holders_ttl(url: &str) -> anyhow::Result<Duration> {
    Ok(baton::connect_leases(url).await?.capabilities().ttls.nearest(TTL))
}

/// Runs `rounds` crash failovers of `baton exec` holders leasing for `ttl`.
pub(crate) async fn run(url: &str, run: &str, rounds: u32, ttl: Duration) -> anyhow::Result<Crash> {
    let lease = format!("bench-{run}-crash");
    let config = baton::ElectorConfig::default().with_ttl(ttl);
    let (events, mut receiver) = mpsc::unbounded_channel();
    let mut holder = spawn(url, &lease, ttl, 0, &events)?;
    let first =
        expect(&mut receiver, 0, START_LIMIT, "holder 0 to acquire the lease", |e| match e {
            Event::Acquired(0, group, _) => Some(*group),
            _ => None,
        })
        .await?;
    holder.command_group = Some(first);
    let mut waiter = start_waiter(url, &lease, ttl, 1, &events, &mut receiver).await?;
    let limit = ttl + config.retry_period * 2 + START_LIMIT;
    let mut failovers = Vec::with_capacity(rounds as usize);
    for round in 0..rounds as usize {
        let waiter_id = round + 1;
        let killed_at = Instant::now();
        holder.kill();
        let what = format!("holder {waiter_id} to take over");
        let (group, acquired_at) = expect(&mut receiver, waiter_id, limit, &what, |e| match e {
            Event::Acquired(id, group, at) if *id == waiter_id => Some((*group, *at)),
            _ => None,
        })
        .await?;
        let failover = acquired_at - killed_at;
        eprintln!("bench:   crash round {}/{rounds}: {:.2} s", round + 1, failover.as_secs_f64());
        failovers.push(failover);
        let _ = holder.child.wait().await;
        waiter.command_group = Some(group);
        holder = waiter;
        if round + 1 == rounds as usize {
            break;
        }
        waiter = start_waiter(url, &lease, ttl, waiter_id + 1, &events, &mut receiver).await?;
    }
    holder.kill();
    let _ = holder.child.wait().await;
    Ok(Crash { ttl, failovers, retry_period: config.retry_period, jitter: config.jitter })
}
