//! A cluster node for fault tests, run as a separate process.
//!
//! Usage: `baton-cluster-node [--leases URL] [--ttl MS] BACKEND_URL NODE` (the options as for
//! `baton-test-node`), on a migrated store whose item ledger exists
//! (`baton_testkit::item_ledger`). It runs a [`Cluster`] with fast timing as node NODE (also
//! its holder id in the leader election), with the partitioned job `items` (see
//! `baton_testkit::cluster_node`): each partition commits its items one by one through the
//! item ledger under the claim's token, checking first that the claim may still act, and
//! checkpoints `[next,token]` every few items.
//!
//! It reports on stdout, one event per line:
//!
//! - `READY` once the node is registered and runs; `STOPPED` after a graceful shutdown;
//! - `LEADING <token>` when it becomes the cluster leader; `BATCH <id>` when a batch it was
//!   asked to run starts;
//! - `STARTED <key> <attempt> <next> <by> <token>` when a claim starts, resuming at item
//!   `next` from the checkpoint saved under token `by` (0 for none);
//! - `INVOKE <key> <item> <token>` before each item's commit, and after it `WROTE`, `REDONE`
//!   (an earlier claim had committed it) or `REJECTED` (by the fence) `<key> <item> <token>`;
//!   `CHECKPOINT <key> <next> <token>` for each checkpoint saved; `DONE <key> <token>` when
//!   the handler succeeds;
//! - `LOST <key> <item> <token>` when the claim stops at an item because it may no longer act
//!   (its node went silent or was fenced, the checkpoint or the item was refused), `FAILED
//!   <key> <item> <token> <error>` when it fails otherwise; `ERROR <what> <error>` for a failed
//!   command;
//! - `STOPPING <key> <item> <token>` and `RESUMED` around a pause (below).
//!
//! Commands on stdin: `RUN` starts a batch of `items`; `QUIT` (or end of input) shuts the node
//! down gracefully; `STEP-DOWN` gives up the cluster leadership (`STEPPED-DOWN true` if it
//! led, `false` if not), and the node campaigns again later; `STOP-IN-WRITE` makes the next
//! item commit, once it has checked that its claim may act, stop the whole process with
//! SIGSTOP before the commit leaves, at a clean point: every store call passes a [`Gate`],
//! which waits for the calls in flight, so the node stops holding no transaction or row lock.
//! After SIGCONT the commit goes on as if it had been in flight all along. An item is reported
//! before its commit leaves the gate, so an event printed after `RESUMED` is about a commit
//! made after the pause.
//!
//! With `BATON_CLUSTER_NODE_LOG` set (a tracing filter such as `info`), it logs to stderr.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context;
use baton::cluster::{
    Cluster, ClusterConfig, ClusterStore, NodeId, PartitionContext, PartitionedJob,
};
use baton::core::JobName;
use baton::core::layer::Layered;
use baton::{ElectorConfig, Error, ErrorKind, HolderId, Leadership, LeaseStore};
use baton_testkit::cluster_node::{self, CHECKPOINT_EVERY, Checkpoint, ITEM_WORK, JOB};
use baton_testkit::faults::TTL;
use baton_testkit::gate::Gate;
use baton_testkit::item_ledger::{Commit, ItemLedger};
use baton_testkit::node_args::NodeArgs;
use tokio::io::AsyncBufReadExt;
use tokio::sync::watch;

fn say(line: impl AsRef<str>) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", line.as_ref());
    let _ = out.flush();
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = NodeArgs::parse(std::env::args().skip(1))?;
    let [url, name] = args.rest.as_slice() else {
        anyhow::bail!("usage: baton-cluster-node [--leases URL] [--ttl MS] BACKEND_URL NODE");
    };
    if let Ok(filter) = std::env::var("BATON_CLUSTER_NODE_LOG") {
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
            .with_writer(std::io::stderr)
            .init();
    }
    let backend = baton::connect_split(args.leases.as_deref().unwrap_or(url), url).await?;
    let gate = Arc::new(Gate::default());
    let leases: Arc<dyn LeaseStore> = Arc::new(Layered::new(backend.leases(), gate.clone()));
    let store: Arc<dyn ClusterStore> = Arc::new(Layered::new(backend.cluster(), gate.clone()));
    let sink = Arc::new(Sink {
        ledger: ItemLedger::connect(url).await?,
        gate,
        node: name.clone(),
        stop_in_write: AtomicBool::new(false),
    });
    let job: JobName = JOB.parse()?;
    let items = PartitionedJob::new(
        job.clone(),
        |_live_nodes: usize| async { cluster_node::partition_specs() },
        {
            let sink = sink.clone();
            move |ctx: PartitionContext| sink.clone().run(ctx)
        },
    );
    let cluster = Cluster::builder(leases, store)
        .config(config(name, args.ttl.unwrap_or(TTL))?)
        .partitioned(items)
        .start()
        .await
        .context("starting the cluster node")?;
    let reporter = tokio::spawn(report_leadership(cluster.leadership()));
    say("READY");
    let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    while let Some(line) = lines.next_line().await? {
        match line.trim() {
            "RUN" => match cluster.run(&job).await {
                Ok(batch) => say(format!("BATCH {batch}")),
                Err(err) => say(format!("ERROR run {err}")),
            },
            "STOP-IN-WRITE" => sink.stop_in_write.store(true, Ordering::SeqCst),
            "STEP-DOWN" => say(format!("STEPPED-DOWN {}", cluster.step_down().await)),
            "QUIT" => break,
            _ => {}
        }
    }
    reporter.abort();
    cluster.shutdown().await;
    say("STOPPED");
    Ok(())
}

/// Fast timing, from `baton_testkit::cluster_node`, as node `name` with an election TTL of
/// `ttl`.
fn config(name: &str, ttl: Duration) -> anyhow::Result<ClusterConfig> {
    let mut config = ClusterConfig::new(NodeId::new(name)?, "localhost");
    config.heartbeat_interval = cluster_node::HEARTBEAT_INTERVAL;
    config.unreachable_after = cluster_node::UNREACHABLE_AFTER;
    config.removed_after = cluster_node::REMOVED_AFTER;
    config.shutdown_grace = cluster_node::SHUTDOWN_GRACE;
    config.elector = ElectorConfig::new(HolderId::new(name)?).with_ttl(ttl);
    Ok(config)
}

/// Prints `LEADING <token>` at the start of each term this node leads.
async fn report_leadership(mut leadership: watch::Receiver<Leadership>) {
    let mut reported = None;
    loop {
        let token = leadership.borrow_and_update().token();
        if let Some(term) = token
            && token != reported
        {
            reported = token;
            say(format!("LEADING {term}"));
        }
        if leadership.changed().await.is_err() {
            return;
        }
    }
}

/// Where partitions commit their items: the item ledger, through the gate.
struct Sink {
    ledger: ItemLedger,
    gate: Arc<Gate>,
    node: String,
    /// Set by `STOP-IN-WRITE`.
    stop_in_write: AtomicBool,
}

impl Sink {
    /// Runs one claim of a partition: its items from the checkpoint on, each after
    /// [`ITEM_WORK`], with a checkpoint every [`CHECKPOINT_EVERY`] items.
    async fn run(self: Arc<Self>, ctx: PartitionContext) -> anyhow::Result<()> {
        let (key, token) = (ctx.key().to_string(), ctx.token());
        let items = cluster_node::items(ctx.params()).context("a partition's items")?;
        let from = match ctx.resume_from() {
            Some(saved) => Checkpoint::parse(saved).context("a partition's checkpoint")?,
            None => Checkpoint { next: items.start, by: 0 },
        };
        say(format!("STARTED {key} {} {} {} {token}", ctx.attempt(), from.next, from.by));
        for item in from.next..items.end {
            tokio::time::sleep(ITEM_WORK).await;
            let step = async {
                self.commit(&ctx, item).await?;
                let next = item + 1;
                if (next - items.start) % CHECKPOINT_EVERY == 0 && next < items.end {
                    let saved = Checkpoint { next, by: token.get() };
                    ctx.checkpoint(saved.to_json(), next - items.start).await?;
                    say(format!("CHECKPOINT {key} {next} {token}"));
                }
                anyhow::Ok(())
            };
            if let Err(err) = step.await {
                let lost =
                    err.downcast_ref::<Error>().map(Error::kind) == Some(ErrorKind::LeaseLost);
                if lost {
                    say(format!("LOST {key} {item} {token}"));
                } else {
                    say(format!("FAILED {key} {item} {token} {err:#}"));
                }
                return Err(err);
            }
        }
        say(format!("DONE {key} {token}"));
        Ok(())
    }

    /// Commits one item under the claim's token once the claim is checked to act, reporting
    /// it before the gate lets a `STOP` through; stops the process first after
    /// `STOP-IN-WRITE`. A rejection is a lost claim.
    async fn commit(&self, ctx: &PartitionContext, item: u64) -> anyhow::Result<()> {
        ctx.ensure_valid()?;
        let (key, token) = (ctx.key().as_str(), ctx.token());
        if self.stop_in_write.swap(false, Ordering::SeqCst) {
            self.gate.stop_here(&format!("{key} {item} {token}")).await;
        }
        let commit = async {
            say(format!("INVOKE {key} {item} {token}"));
            let commit = self.ledger.commit(key, item, &self.node, token).await?;
            let kind = match commit {
                Commit::Written => "WROTE",
                Commit::Redone => "REDONE",
                Commit::Rejected => "REJECTED",
            };
            say(format!("{kind} {key} {item} {token}"));
            anyhow::Ok(commit)
        };
        match self.gate.pass(commit).await? {
            Commit::Written | Commit::Redone => Ok(()),
            Commit::Rejected => Err(Error::lease_lost(format!(
                "the fence of partition {key} refused token {token}: a newer claim wrote"
            ))
            .into()),
        }
    }
}
