//! A scheduler node for fault tests, run as a separate process.
//!
//! Usage: `baton-test-node [--leases URL] [--ttl MS] BACKEND_URL NODE [JOBS]`, where JOBS is a
//! comma-separated list of `tick` and `slow` (both by default; see `baton_testkit::node` for
//! their schedules and policies), `--leases` a lease store beside the backend (a lease-only
//! one) and `--ttl` the election's TTL (`baton_testkit::node::TTL` by default). It runs a
//! [`Scheduler`] with fast timing under the holder id NODE, with handlers that write through
//! the fenced ledger (one resource, so one fence, per job) under the attempt's token.
//!
//! It reports on stdout, one event per line, where RUN is `<job> <fire> <attempt> <token>`:
//!
//! - `READY` once its scheduler runs; `STOPPED` after a graceful shutdown;
//! - `LEADING <token>` when the store shows it holding the scheduler lease under a token not
//!   reported yet;
//! - `STARTED RUN` when a handler starts; `RAN RUN` when it succeeds; `FAILED RUN` when it
//!   fails;
//! - `INVOKE <step> RUN` before each fenced write, and after it `WROTE <step> RUN` or
//!   `REJECTED <step> RUN` (`once` for tick;
//!   `begin`, then `end` after [`node::SLOW_RUN`] of work, for slow); a rejected write fails
//!   the handler; `ERROR <step> RUN <error>` reports a write that failed otherwise;
//! - `STOPPING [RUN]` and `RESUMED` around a pause (below);
//! - `HELD RUN` when a `tick` handler holds before its write (below).
//!
//! A handler's body runs in a task of its own, so it finishes even when the scheduler stops
//! awaiting it (its execution was abandoned): a late write of an abandoned attempt really
//! happens, and the fence must refuse it.
//!
//! Commands on stdin: `QUIT` (or end of input) shuts the scheduler down gracefully.
//! `STEP-DOWN` gives up the scheduler leadership (`STEPPED-DOWN true` if it led, `false` if
//! not), and the node campaigns again later. `STOP`
//! makes the node stop itself with SIGSTOP at a clean point; `STOP-IN-TICK` does the same in
//! the next `tick` handler that starts, before its write, so that the node stops with that
//! execution running (`STOPPING RUN` names it). The clean point: every store call (the
//! scheduler's, the elector's, the handlers' ledger writes) passes a gate; the node closes the
//! gate, waits for the calls in flight, prints `STOPPING` and stops, holding no transaction or
//! row lock open, exactly like a SIGSTOP of the whole process between two calls (a SIGSTOP in
//! the middle of a SQLite write transaction would block every other node until SIGCONT). After
//! SIGCONT it prints `RESUMED` and opens the gate. A write is reported before its call leaves
//! the gate, so an event printed after `RESUMED` is about a write made after the pause.
//!
//! `HOLD-TICK` makes the next `tick` handler that starts hold before its write, its execution
//! running and heartbeated, until `RELEASE` (which also lets through the next one to hold, if
//! it comes first).
//!
//! With `BATON_TEST_NODE_LOG_DIR` set, it logs to `NODE.log` in that directory, filtered by
//! `BATON_TEST_NODE_LOG` (default `info`).

use std::future::Future;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;
use baton::core::JobStore;
use baton::core::layer::Layered;
use baton::core::schedule::{OverlapPolicy, RetryPolicy};
use baton::scheduler::{Job, JobContext, Scheduler, SchedulerConfig};
use baton::{ElectorConfig, HolderId, LeaseName, LeaseStore};
use baton_testkit::gate::Gate;
use baton_testkit::ledger::{Append, Ledger};
use baton_testkit::node::{self, SLOW, TICK};
use baton_testkit::node_args::NodeArgs;
use tokio::io::AsyncBufReadExt;
use tokio::sync::Notify;

fn say(line: impl AsRef<str>) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", line.as_ref());
    let _ = out.flush();
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = NodeArgs::parse(std::env::args().skip(1))?;
    let (url, name, jobs) = match args.rest.as_slice() {
        [url, name] => (url, name, "tick,slow"),
        [url, name, jobs] => (url, name, jobs.as_str()),
        _ => anyhow::bail!(
            "usage: baton-test-node [--leases URL] [--ttl MS] BACKEND_URL NODE [JOBS]"
        ),
    };
    log_to_file(name)?;
    let backend = baton::connect_split(args.leases.as_deref().unwrap_or(url), url).await?;
    backend.migrate().await?;
    let gate = Arc::new(Gate::default());
    let leases: Arc<dyn LeaseStore> = Arc::new(Layered::new(backend.leases(), gate.clone()));
    let store: Arc<dyn JobStore> = Arc::new(Layered::new(backend.jobs(), gate.clone()));
    let holder = HolderId::new(name.clone())?;
    let mut config = SchedulerConfig::new(
        ElectorConfig::new(holder.clone()).with_ttl(args.ttl.unwrap_or(node::TTL)),
    );
    config.heartbeat_interval = node::HEARTBEAT_INTERVAL;
    config.abandon_after = node::ABANDON_AFTER;
    config.poll_interval = node::POLL_INTERVAL;
    config.shutdown_grace = node::SHUTDOWN_GRACE;
    config.reload_interval = node::RELOAD_INTERVAL;
    let lease = config.lease.clone();
    let sink = Sink {
        ledger: Ledger::connect(url).await?,
        gate: gate.clone(),
        node: name.clone(),
        stop_in_tick: Arc::default(),
        hold_tick: Arc::default(),
        release: Arc::default(),
    };
    let mut builder = Scheduler::builder(leases.clone(), store).config(config);
    for job in jobs.split(',') {
        builder = builder.job(define(job, &sink)?);
    }
    let scheduler = builder.start().await.context("starting the scheduler")?;
    let reporter = tokio::spawn(report_leadership(leases, holder, lease));
    say("READY");
    let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    while let Some(line) = lines.next_line().await? {
        match line.trim() {
            "STOP" => gate.stop_here("").await,
            "STOP-IN-TICK" => sink.stop_in_tick.store(true, Ordering::SeqCst),
            "STEP-DOWN" => say(format!("STEPPED-DOWN {}", scheduler.step_down().await)),
            "HOLD-TICK" => sink.hold_tick.store(true, Ordering::SeqCst),
            "RELEASE" => sink.release.notify_one(),
            "QUIT" => break,
            _ => {}
        }
    }
    reporter.abort();
    scheduler.shutdown().await;
    say("STOPPED");
    Ok(())
}

/// Diagnostics for a failed test, when asked for: stdout carries the events.
fn log_to_file(node: &str) -> anyhow::Result<()> {
    let Ok(dir) = std::env::var("BATON_TEST_NODE_LOG_DIR") else { return Ok(()) };
    let filter = std::env::var("BATON_TEST_NODE_LOG").unwrap_or_else(|_| "info".to_string());
    let path = std::path::Path::new(&dir).join(format!("{node}.log"));
    let file = std::fs::File::create(&path).with_context(|| format!("creating {path:?}"))?;
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_writer(std::sync::Mutex::new(file))
        .with_ansi(false)
        .init();
    Ok(())
}

/// The job named `name`, with its handler writing through `sink`.
fn define(name: &str, sink: &Sink) -> anyhow::Result<Job> {
    let sink = sink.clone();
    let job = match name {
        TICK => Job::every(TICK, node::TICK_EVERY)
            .handler(move |ctx: JobContext| sink.run(ctx, &["once"]))?,
        SLOW => Job::every(SLOW, node::SLOW_EVERY)
            .overlap(OverlapPolicy::BufferOne)
            .retry(
                RetryPolicy::default()
                    .with_max_attempts(node::SLOW_ATTEMPTS)
                    .with_backoff(node::SLOW_BACKOFF, node::SLOW_BACKOFF * 5),
            )
            .handler(move |ctx: JobContext| sink.run(ctx, &["begin", "end"]))?,
        other => anyhow::bail!("unknown job {other:?}: expected {TICK} or {SLOW}"),
    };
    Ok(job)
}

/// Where handlers write: the ledger, through the gate.
#[derive(Clone)]
struct Sink {
    ledger: Ledger,
    gate: Arc<Gate>,
    node: String,
    /// Set by `STOP-IN-TICK`.
    stop_in_tick: Arc<AtomicBool>,
    /// Set by `HOLD-TICK`.
    hold_tick: Arc<AtomicBool>,
    /// Signalled by `RELEASE`.
    release: Arc<Notify>,
}

impl Sink {
    /// Runs a handler body in a task of its own: a fenced write for each step, with a
    /// [`node::SLOW_RUN`] of work between two steps.
    fn run(
        &self,
        ctx: JobContext,
        steps: &'static [&'static str],
    ) -> impl Future<Output = std::result::Result<(), String>> + use<> {
        let sink = self.clone();
        let body = tokio::spawn(async move {
            let run =
                format!("{} {} {} {}", ctx.job(), ctx.scheduled_at(), ctx.attempt(), ctx.token());
            say(format!("STARTED {run}"));
            if ctx.job().as_str() == TICK && sink.stop_in_tick.swap(false, Ordering::SeqCst) {
                sink.gate.stop_here(&run).await;
            }
            if ctx.job().as_str() == TICK && sink.hold_tick.swap(false, Ordering::SeqCst) {
                say(format!("HELD {run}"));
                sink.release.notified().await;
            }
            let mut outcome = Ok(());
            for (i, step) in steps.iter().enumerate() {
                if i > 0 {
                    tokio::time::sleep(node::SLOW_RUN).await;
                }
                outcome = sink.write(&ctx, step, &run).await;
                if outcome.is_err() {
                    break;
                }
            }
            match &outcome {
                Ok(()) => say(format!("RAN {run}")),
                Err(_) => say(format!("FAILED {run}")),
            }
            outcome
        });
        async move { body.await.map_err(|err| err.to_string())? }
    }

    /// One fenced write, reported before the gate lets a `STOP` through: an event printed
    /// after `RESUMED` is about a write made after the pause.
    async fn write(
        &self,
        ctx: &JobContext,
        step: &str,
        run: &str,
    ) -> std::result::Result<(), String> {
        let append = async {
            say(format!("INVOKE {step} {run}"));
            let append =
                self.ledger.append(ctx.job().as_str(), &self.node, ctx.token(), None).await;
            match append {
                Ok(Append::Accepted) => {
                    say(format!("WROTE {step} {run}"));
                    Ok(())
                }
                Ok(Append::Rejected | Append::Stopped) => {
                    say(format!("REJECTED {step} {run}"));
                    Err("the fence refused the write: a newer attempt wrote".to_string())
                }
                Err(err) => {
                    say(format!("ERROR {step} {run} {err:#}"));
                    Err(format!("{err:#}"))
                }
            }
        };
        self.gate.pass(append).await
    }
}

/// Prints `LEADING <token>` whenever the store shows this node holding the scheduler lease
/// under a token not reported yet.
async fn report_leadership(leases: Arc<dyn LeaseStore>, holder: HolderId, lease: LeaseName) {
    let mut reported = None;
    loop {
        if let (Ok(Some(record)), Ok(now)) = (leases.get(&lease).await, leases.now().await)
            && record.holder_at(now) == Some(&holder)
            && reported != Some(record.token)
        {
            reported = Some(record.token);
            say(format!("LEADING {}", record.token));
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}
