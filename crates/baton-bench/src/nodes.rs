//! The node processes of a scenario: `baton bench node` children of this very binary, each in
//! a process group of its own, commanded through their stdin and read through their stdout
//! (see `wire`). Their stderr is passed on, each line marked with the node's number.
//!
//! The nodes log as `BATON_BENCH_NODE_LOG` says (a `BATON_LOG` filter), by default warnings
//! only. Closing a node's stdin makes it stop gracefully (that is also what happens when this
//! process dies); dropping a [`Fleet`] kills what is still running.

use std::process::Stdio;
use std::time::Duration;

use anyhow::Context;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

use crate::args::NodeRole;
use crate::tally::Tally;
use crate::wire::{self, Message};

/// The environment variable whose value becomes the nodes' `BATON_LOG`.
const NODE_LOG: &str = "BATON_BENCH_NODE_LOG";

/// Lines of each node's stderr passed on; the rest are counted.
const STDERR_SHOWN: usize = 10;
/// Characters of a node's stderr line passed on (a slow-statement warning carries the SQL).
const LINE_SHOWN: usize = 300;

/// What a node said, or that it ended.
#[derive(Debug)]
enum Event {
    Said(Message),
    /// Its stdout closed (it exited); carries its last line on stderr.
    Ended(String),
}

/// One node process.
struct NodeProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    group: Pid,
    /// Killed on purpose: neither its report nor a successful exit is expected.
    killed: bool,
}

impl Drop for NodeProcess {
    fn drop(&mut self) {
        let _ = killpg(self.group, Signal::SIGKILL);
    }
}

/// What a node reported when it stopped.
#[derive(Debug, Clone, Default)]
pub(crate) struct NodeReport {
    /// Its holder id.
    pub(crate) holder: String,
    /// Its store calls in the measured window.
    pub(crate) tally: Tally,
    /// How long the window lasted on the node.
    pub(crate) window: Duration,
    /// Executions it completed.
    pub(crate) done: u64,
    /// Fire lags: (execution id, scheduled instant in ms, lag in µs).
    pub(crate) lags: Vec<(i64, i64, i64)>,
    /// Completions: (ms since the start, count).
    pub(crate) completed: Vec<(u64, u64)>,
}

/// The node processes of one scenario step.
pub(crate) struct Fleet {
    nodes: Vec<NodeProcess>,
    events: mpsc::UnboundedReceiver<(usize, Event)>,
    reports: Vec<NodeReport>,
    /// Which nodes have sent their whole report.
    ended: Vec<bool>,
}

impl Fleet {
    /// Starts `count` nodes of `role` for `run`, each with `extra` arguments.
    pub(crate) fn spawn(
        url: &str,
        run: &str,
        role: NodeRole,
        count: u32,
        extra: &[String],
    ) -> anyhow::Result<Fleet> {
        Fleet::spawn_from(url, run, role, 0, count, extra)
    }

    /// Starts `count` nodes numbered from `first` in the run (node 0 is the one that starts
    /// batches), so that nodes joining a run later do not take the numbers, and the ids, of
    /// those already in it.
    pub(crate) fn spawn_from(
        url: &str,
        run: &str,
        role: NodeRole,
        first: u32,
        count: u32,
        extra: &[String],
    ) -> anyhow::Result<Fleet> {
        let (sender, events) = mpsc::unbounded_channel();
        let mut nodes = Vec::with_capacity(count as usize);
        for index in 0..count as usize {
            let number = first + u32::try_from(index)?;
            nodes.push(spawn_one(url, run, role, index, number, extra, &sender)?);
        }
        let reports = vec![NodeReport::default(); nodes.len()];
        let ended = vec![false; nodes.len()];
        Ok(Fleet { nodes, events, reports, ended })
    }

    /// Sends `command` to every node.
    pub(crate) async fn send(&mut self, command: wire::Command) -> anyhow::Result<()> {
        for (index, node) in self.nodes.iter_mut().enumerate() {
            if let Some(stdin) = node.stdin.as_mut() {
                let line = format!("{}\n", command.line());
                stdin
                    .write_all(line.as_bytes())
                    .await
                    .with_context(|| format!("node {index} no longer takes commands"))?;
                stdin.flush().await?;
            }
        }
        Ok(())
    }

    /// Waits until every node reported ready, for at most `limit`; answers their holder ids.
    pub(crate) async fn ready(&mut self, limit: Duration) -> anyhow::Result<Vec<String>> {
        let deadline = tokio::time::Instant::now() + limit;
        while self.reports.iter().any(|r| r.holder.is_empty()) {
            self.next_until(deadline, "the nodes to start").await?;
        }
        Ok(self.reports.iter().map(|r| r.holder.clone()).collect())
    }

    /// Kills node `index`'s process group with SIGKILL, as a crash would.
    pub(crate) fn kill(&mut self, index: usize) -> anyhow::Result<()> {
        let node =
            self.nodes.get_mut(index).with_context(|| format!("there is no node {index}"))?;
        killpg(node.group, Signal::SIGKILL).with_context(|| format!("killing node {index}"))?;
        (node.stdin, node.killed) = (None, true);
        self.ended[index] = true;
        Ok(())
    }

    /// Executions the nodes completed so far, as they last reported.
    pub(crate) fn done(&self) -> u64 {
        self.reports.iter().map(|r| r.done).sum()
    }

    /// Takes what the nodes say for at most `limit`, or until the next message.
    pub(crate) async fn listen(&mut self, limit: Duration) -> anyhow::Result<()> {
        let deadline = tokio::time::Instant::now() + limit;
        if let Ok(event) = tokio::time::timeout_at(deadline, self.events.recv()).await {
            let (index, event) = event.context("the nodes' output ended")?;
            self.handle(index, event, "the nodes")?;
        }
        Ok(())
    }

    /// Tells every node to stop and collects their reports, for at most `limit`.
    pub(crate) async fn finish(mut self, limit: Duration) -> anyhow::Result<Vec<NodeReport>> {
        self.send(wire::Command::Stop).await?;
        for node in &mut self.nodes {
            node.stdin = None;
        }
        let deadline = tokio::time::Instant::now() + limit;
        while self.ended.iter().any(|ended| !ended) {
            self.next_until(deadline, "the nodes' reports").await?;
        }
        for (index, node) in self.nodes.iter_mut().enumerate() {
            let status = tokio::time::timeout_at(deadline, node.child.wait())
                .await
                .with_context(|| format!("node {index} did not exit"))??;
            anyhow::ensure!(node.killed || status.success(), "node {index} exited with {status}");
        }
        Ok(std::mem::take(&mut self.reports))
    }

    /// Takes the next event, waiting at most until `deadline`.
    async fn next_until(
        &mut self,
        deadline: tokio::time::Instant,
        what: &str,
    ) -> anyhow::Result<()> {
        let (index, event) = tokio::time::timeout_at(deadline, self.events.recv())
            .await
            .map_err(|_| anyhow::anyhow!("timed out waiting for {what}"))?
            .context("the nodes' output ended")?;
        self.handle(index, event, what)
    }

    fn handle(&mut self, index: usize, event: Event, what: &str) -> anyhow::Result<()> {
        let report = &mut self.reports[index];
        match event {
            Event::Said(Message::Ready(holder)) => report.holder = holder,
            Event::Said(Message::Done(done)) => report.done = done,
            Event::Said(Message::Tally(call, entry)) => {
                report.tally.entries.insert(call, entry);
            }
            Event::Said(Message::Window(window)) => report.window = window,
            Event::Said(Message::Lag { id, scheduled_ms, lag_us }) => {
                report.lags.push((id, scheduled_ms, lag_us));
            }
            Event::Said(Message::Completed { offset_ms, count }) => {
                report.completed.push((offset_ms, count));
            }
            Event::Said(Message::End) => self.ended[index] = true,
            Event::Ended(_) if self.ended[index] => {}
            Event::Ended(last) => {
                anyhow::bail!("node {index} exited while waiting for {what}: {last}")
            }
        }
        Ok(())
    }
}

fn spawn_one(
    url: &str,
    run: &str,
    role: NodeRole,
    index: usize,
    number: u32,
    extra: &[String],
    events: &mpsc::UnboundedSender<(usize, Event)>,
) -> anyhow::Result<NodeProcess> {
    let program = std::env::current_exe().context("finding the baton executable")?;
    let mut command = Command::new(&program);
    command
        .args(["bench", "node", "--backend", url, "--run", run, "--role", role.arg()])
        .args(["--index", &number.to_string()])
        .args(extra)
        .env_remove("BATON_LOG")
        .env_remove("BATON_BACKEND");
    // The nodes log at their default level unless asked otherwise, for diagnosis.
    if let Ok(filter) = std::env::var(NODE_LOG) {
        command.env("BATON_LOG", filter);
    }
    let mut child = command
        .process_group(0)
        .kill_on_drop(true)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {}", program.display()))?;
    let pid = child.id().context("a node exited at once")?;
    let group = Pid::from_raw(i32::try_from(pid)?);
    let stdin = child.stdin.take();
    let stdout = child.stdout.take().context("no stdout pipe")?;
    let stderr = child.stderr.take().context("no stderr pipe")?;
    let errors = tokio::spawn(async move {
        let mut lines = BufReader::new(stderr).lines();
        let (mut last, mut count) = (String::new(), 0usize);
        while let Ok(Some(line)) = lines.next_line().await {
            count += 1;
            if count <= STDERR_SHOWN {
                eprintln!("bench:   node {number}: {}", shortened(&line));
            }
            last = line;
        }
        if count > STDERR_SHOWN {
            eprintln!(
                "bench:   node {number}: {} more lines on stderr not shown; the last: {}",
                count - STDERR_SHOWN,
                shortened(&last)
            );
        }
        last
    });
    let sender = events.clone();
    tokio::spawn(async move {
        let mut lines = BufReader::new(stdout).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            match Message::parse(&line) {
                Some(message) => {
                    let _ = sender.send((index, Event::Said(message)));
                }
                None => eprintln!("bench:   node {number} said: {line}"),
            }
        }
        let last = errors.await.unwrap_or_default();
        let _ = sender.send((index, Event::Ended(last)));
    });
    Ok(NodeProcess { child, stdin, group, killed: false })
}

/// `line`, cut to [`LINE_SHOWN`] characters.
fn shortened(line: &str) -> String {
    match line.char_indices().nth(LINE_SHOWN) {
        Some((cut, _)) => format!("{} …", &line[..cut]),
        None => line.to_string(),
    }
}
