//! `baton bench node`: one node process of a multi-process scenario, started by the scenario
//! itself. It works as its role says, obeys the commands on its stdin (see `wire`) and, when
//! told to stop (or when stdin closes, because the parent went away), shuts down gracefully and
//! reports its tallies and samples on stdout.

use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use baton::core::JobStore;
use baton::{HolderId, LeaseStore};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::mpsc;

use crate::args::{NodeArgs, NodeRole};
use crate::completions::Completions;
use crate::tally::Tally;
use crate::tally_jobs::TalliedJobs;
use crate::tally_leases::TalliedLeases;
use crate::wire::{Command, Message};
use crate::{node_cluster, node_exec, node_scheduled};

/// What a node works with: its stores (tallied), its id and its commands.
pub(crate) struct Node {
    /// The job store, every call tallied.
    pub(crate) jobs: Arc<dyn JobStore>,
    /// The lease store, every call tallied.
    pub(crate) leases: Arc<dyn LeaseStore>,
    /// This node's holder id, as elector and worker.
    pub(crate) holder: HolderId,
    /// The arguments it was started with.
    pub(crate) args: NodeArgs,
    /// Executions completed through `jobs`.
    pub(crate) completions: Arc<Completions>,
    commands: mpsc::UnboundedReceiver<Command>,
    started: Instant,
    mark: Option<(Tally, Instant)>,
    snap: Option<(Tally, Instant)>,
}

impl Node {
    /// Waits for the next `start` or `stop` (the end of stdin counts as `stop`), taking the
    /// tallies that `mark` and `snap` ask for meanwhile.
    pub(crate) async fn next(&mut self) -> Command {
        loop {
            match self.commands.recv().await.unwrap_or(Command::Stop) {
                Command::Mark => self.mark = Some((Tally::now(), Instant::now())),
                Command::Snap => self.snap = Some((Tally::now(), Instant::now())),
                other => return other,
            }
        }
    }

    /// Waits for `stop`, ignoring `start`.
    pub(crate) async fn until_stop(&mut self) {
        while self.next().await != Command::Stop {}
    }

    /// Reports the tallies of the measured window: from `mark` (or the start of the process)
    /// to `snap` (or now).
    pub(crate) fn report_window(&self, out: &mut impl Write) -> std::io::Result<()> {
        let (begin, began) = self.mark.clone().unwrap_or((Tally::default(), self.started));
        let (end, ended) = self.snap.clone().unwrap_or_else(|| (Tally::now(), Instant::now()));
        for (call, entry) in end.since(&begin).entries {
            writeln!(out, "{}", Message::Tally(call, entry).line())?;
        }
        writeln!(out, "{}", Message::Window(ended.saturating_duration_since(began)).line())
    }
}

/// Writes one message on stdout at once.
pub(crate) fn emit(message: &Message) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{}", message.line());
    let _ = stdout.flush();
}

/// Runs the node as its role says.
pub(crate) async fn run(args: NodeArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    let backend = baton::connect(&args.backend).await?;
    let holder = HolderId::new(format!("bench-{}-node{}", args.run, args.index))?;
    let completions = Arc::new(Completions::default());
    let node = Node {
        jobs: TalliedJobs::wrap(backend.jobs(), completions.clone()),
        leases: TalliedLeases::wrap(backend.leases()),
        holder,
        args,
        completions,
        commands: read_commands(),
        started,
        mark: None,
        snap: None,
    };
    let outcome = match node.args.role {
        NodeRole::Cron => node_scheduled::cron(node).await,
        NodeRole::Idle => node_scheduled::idle(node).await,
        NodeRole::ExecDefault | NodeRole::ExecBatched => node_exec::run(node).await,
        NodeRole::Etl => node_cluster::etl(node).await,
        NodeRole::Digest => node_cluster::digest(node).await,
    };
    if let Err(err) = outcome {
        // Exit at once: the runtime would otherwise wait for the blocked read of stdin, and
        // the parent learns of the failure from the end of this process's output.
        eprintln!("baton: error: {err:#}");
        std::process::exit(1);
    }
    Ok(())
}

/// Forwards the commands on stdin; the channel closes with stdin.
fn read_commands() -> mpsc::UnboundedReceiver<Command> {
    let (sender, receiver) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut lines = BufReader::new(tokio::io::stdin()).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            match Command::parse(&line) {
                Some(command) => {
                    if sender.send(command).is_err() {
                        return;
                    }
                }
                None => eprintln!("bench node: ignoring the command {line:?}"),
            }
        }
    });
    receiver
}
