//! Drives `baton-test-node` processes, scheduler nodes for fault tests: start, read their
//! events, kill, pause, quit. Also the timing and the jobs they share with the binary.
//!
//! The process plumbing is [`EventedProcess`]'s, reached through `Deref`: `expect`,
//! `expect_where`, `next`, `drain`, `history`, `kill9`, `pause`, `resume`.

use std::ops::{Deref, DerefMut};
use std::time::Duration;

use baton::StoreTime;
use tokio::process::Command;

pub use crate::evented::Event;
use crate::evented::EventedProcess;
use crate::node_args::NodeArgs;

/// The leader election TTL of a node: the lease holders' (renew every 600 ms, step down 2.1 s
/// after the last renewal, retry every 300 ms ± 20 %).
pub use crate::faults::TTL;
/// How often a node heartbeats the executions it runs.
pub const HEARTBEAT_INTERVAL: Duration = Duration::from_millis(300);
/// A running execution whose heartbeat is older than this (store clock) is abandoned.
pub const ABANDON_AFTER: Duration = Duration::from_millis(1500);
/// How often an idle worker looks for due work without a notification.
pub const POLL_INTERVAL: Duration = Duration::from_secs(1);
/// How often the leader rereads the registered jobs, so that a job registered by a node that
/// joined later is planned soon.
pub const RELOAD_INTERVAL: Duration = Duration::from_secs(1);
/// How long a graceful shutdown waits for running handlers.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// The job firing every [`TICK_EVERY`], whose handler makes one fenced write.
pub const TICK: &str = "tick";
/// The interval of [`TICK`].
pub const TICK_EVERY: Duration = Duration::from_secs(1);
/// The job firing every [`SLOW_EVERY`], whose handler writes through the fence, works for
/// [`SLOW_RUN`], and writes again; retried up to [`SLOW_ATTEMPTS`] attempts.
pub const SLOW: &str = "slow";
/// The interval of [`SLOW`].
pub const SLOW_EVERY: Duration = Duration::from_secs(5);
/// How long a [`SLOW`] execution works between its two writes.
pub const SLOW_RUN: Duration = Duration::from_secs(4);
/// Attempts per fire of [`SLOW`], the first included.
pub const SLOW_ATTEMPTS: u32 = 3;
/// The backoff before a retry of [`SLOW`].
pub const SLOW_BACKOFF: Duration = Duration::from_millis(200);

/// One execution as a node reports it: the last four words of `STARTED`, `WROTE`,
/// `REJECTED`, `RAN` and `FAILED` lines, `<job> <fire> <attempt> <token>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Run {
    /// The job.
    pub job: String,
    /// The fire's scheduled instant.
    pub fire: StoreTime,
    /// The attempt, from 1.
    pub attempt: u32,
    /// The attempt's fencing token.
    pub token: u64,
}

impl Run {
    /// The execution an event is about, if it is about one.
    pub fn of(event: &Event) -> Option<Run> {
        let words: Vec<&str> = event.detail.split_whitespace().collect();
        let [job, fire, attempt, token] = words.get(words.len().checked_sub(4)?..)? else {
            return None;
        };
        Some(Run {
            job: job.to_string(),
            fire: StoreTime::parse(fire).ok()?,
            attempt: attempt.parse().ok()?,
            token: token.parse().ok()?,
        })
    }

    /// The line's fields as the node prints them.
    pub fn line(&self) -> String {
        format!("{} {} {} {}", self.job, self.fire, self.attempt, self.token)
    }
}

/// The first word of a node's write events, the step of the handler that wrote: `once` for
/// [`TICK`], `begin` and `end` for [`SLOW`].
pub fn step(event: &Event) -> &str {
    event.detail.split_whitespace().next().unwrap_or("")
}

/// A running node process; killed when dropped.
pub struct NodeProcess {
    process: EventedProcess,
    /// Its node name: its holder id in the election and the node of its executions.
    pub name: String,
}

impl NodeProcess {
    /// Starts `binary` (the path of `baton-test-node`) on the backend `url` with its leases at
    /// `leases` under `ttl`, as node `name`, running the handlers of `jobs`.
    pub fn spawn(
        binary: &str,
        [url, leases]: [&str; 2],
        ttl: Duration,
        name: &str,
        jobs: &[&str],
    ) -> Self {
        let mut command = Command::new(binary);
        command.args(NodeArgs::options(leases, ttl)).args([url, name, &jobs.join(",")]);
        NodeProcess { process: EventedProcess::spawn(command, name), name: name.to_string() }
    }

    /// Waits for the next event of `kind` about an execution of `job`.
    pub async fn expect_run(&mut self, kind: &str, job: &str, within: Duration) -> Run {
        let (event, _) =
            self.expect_where(kind, within, |e| Run::of(e).is_some_and(|run| run.job == job)).await;
        Run::of(&event).expect("a run")
    }

    /// Waits for the event of `kind` about `run` (for a write, at `step`, if given).
    pub async fn expect_this_run(
        &mut self,
        kind: &str,
        run: &Run,
        step: Option<&str>,
        within: Duration,
    ) -> Event {
        let wanted = |e: &Event| {
            Run::of(e).as_ref() == Some(run) && step.is_none_or(|step| self::step(e) == step)
        };
        self.expect_where(kind, within, wanted).await.0
    }

    /// Asks the node to shut down gracefully (see [`NodeProcess::stopped`]).
    pub async fn ask_to_quit(&mut self) {
        self.send_line("QUIT").await;
    }

    /// Waits until the node, asked to quit, has shut down gracefully and exited.
    pub async fn stopped(&mut self, within: Duration) {
        self.expect("STOPPED", within).await;
        assert!(self.wait_exit(within).await, "{} exited with an error", self.name);
    }

    /// Every execution the node reported with `kind`.
    pub fn runs(&self, kind: &str) -> Vec<Run> {
        self.history().iter().filter(|e| e.kind == kind).filter_map(Run::of).collect()
    }
}

impl Deref for NodeProcess {
    type Target = EventedProcess;

    fn deref(&self) -> &EventedProcess {
        &self.process
    }
}

impl DerefMut for NodeProcess {
    fn deref_mut(&mut self) -> &mut EventedProcess {
        &mut self.process
    }
}
