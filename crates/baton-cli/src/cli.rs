//! The command line, as clap parses it.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// baton: leases with fencing tokens, leader election and cluster-wide scheduling.
#[derive(Debug, Parser)]
#[command(name = "baton", version, about, propagate_version = true)]
pub struct Cli {
    /// More log output on stderr (-v info, -vv debug); BATON_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// How records are printed: `table` for people, `json` for programs (the API's shapes).
    #[arg(long, value_enum, env = "BATON_OUTPUT", default_value_t = Output::Table, global = true)]
    pub output: Output,
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// How records are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Output {
    /// Aligned columns.
    Table,
    /// The JSON the HTTP API answers for the same records.
    Json,
}

/// Where the coordination stores are.
#[derive(Debug, Clone, Args)]
pub struct BackendArg {
    /// Backend URL: sqlite://PATH, postgres://USER@HOST:PORT/DB or mysql://USER@HOST:PORT/DB,
    /// holding leases and state; or redis://HOST:PORT (rediss:// with TLS,
    /// redis+sentinel://HOST:PORT,…/MASTER behind Sentinel), etcd://HOST:PORT[,HOST:PORT…]
    /// (etcds:// with TLS) or zk://HOST:PORT[,…][/CHROOT],
    /// holding leases only.
    #[arg(long, env = "BATON_BACKEND", value_name = "URL")]
    pub backend: String,
    /// Keep leases in this store instead (such as redis://HOST:PORT,
    /// redis+sentinel://HOST:PORT,…/MASTER, etcd[s]://HOST:PORT[,…] or
    /// zk://HOST:PORT[,…][/CHROOT]), the rest in
    /// --backend.
    #[arg(long, env = "BATON_LEASE_BACKEND", value_name = "URL")]
    pub lease_backend: Option<String>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the jobs of a config file as commands, as a node of the cluster (see
    /// docs/config.md).
    Agent(AgentArgs),
    /// Run a command only while holding a lease (the guard for a Kubernetes CronJob).
    Exec(ExecArgs),
    /// Inspect and administer leases.
    #[command(subcommand)]
    Lease(LeaseCommand),
    /// Show the leader-change history, oldest first.
    History(HistoryArgs),
    /// Inspect and control scheduled jobs.
    #[command(subcommand)]
    Jobs(JobsCommand),
    /// Inspect executions.
    #[command(subcommand)]
    Executions(ExecutionsCommand),
    /// Check the record for duplicate, missed and late fires.
    Audit(AuditArgs),
    /// List the cluster's nodes, or their state changes.
    Nodes(NodesArgs),
    /// Inspect the batches of partitioned jobs, or ask an agent to start one.
    #[command(subcommand)]
    Batch(BatchCommand),
    /// One screen of the cluster: leaders, nodes, the soonest fires, recent failures and
    /// running batches.
    Status(BackendArg),
    /// Create or upgrade the backend's schema.
    Migrate(BackendArg),
    /// Run a benchmark scenario.
    Bench(baton_bench::BenchArgs),
    /// Run a local three-node demonstration: scheduling, a leader crash, the failover and a
    /// verification of the record.
    Demo(DemoArgs),
    /// Print the completion script of a shell, such as `baton completions bash >
    /// /etc/bash_completion.d/baton`.
    Completions(CompletionsArgs),
}

/// Arguments of `baton completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Arguments of `baton agent`.
#[derive(Debug, Args)]
pub struct AgentArgs {
    /// The config file (TOML).
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
    /// Check the file without connecting to the store, print a summary line and exit (2 and
    /// one line naming the file, line and key when it is refused).
    #[arg(long)]
    pub check: bool,
}

/// What `baton exec` does when the lease is held by someone else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OnHeld {
    /// Print who holds it and exit 0.
    Skip,
    /// Wait for the holder to release it or for it to expire.
    Wait,
    /// Exit 75.
    Fail,
}

/// Arguments of `baton exec`.
#[derive(Debug, Args)]
pub struct ExecArgs {
    #[command(flatten)]
    pub backend: BackendArg,
    /// The lease to hold while the command runs (defaults to the job's name with --job).
    #[arg(long, value_name = "NAME", required_unless_present = "job")]
    pub lock: Option<String>,
    /// Record the run as an execution of this job, once per fire: a fire that already
    /// succeeded is not run again.
    #[arg(long, value_name = "NAME")]
    pub job: Option<String>,
    /// The fire this run stands for (RFC 3339); defaults to the job's latest scheduled
    /// instant at or before now.
    #[arg(long, value_name = "TIME", requires = "job", conflicts_with = "idempotency_key")]
    pub fire_time: Option<String>,
    /// Identify the run by this key instead of a fire time.
    #[arg(long, value_name = "KEY", requires = "job")]
    pub idempotency_key: Option<String>,
    /// Register (or update) the job with this cron schedule before running.
    #[arg(long, value_name = "CRON", requires = "job")]
    pub schedule: Option<String>,
    /// The IANA time zone of --schedule.
    #[arg(long, value_name = "ZONE", requires = "schedule", default_value = "UTC")]
    pub time_zone: String,
    /// The lease's time to live; renewals happen every TTL/5 and the command is stopped at
    /// 7/10 of the TTL after the last successful renewal.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = lease_ttl)]
    pub ttl: Duration,
    /// What to do when another holder has the lease.
    #[arg(long, value_enum, default_value_t = OnHeld::Skip)]
    pub on_held: OnHeld,
    /// Hand the store's URL, credentials included, to the command as BATON_BACKEND (without
    /// it the command does not see BATON_BACKEND).
    #[arg(long)]
    pub pass_backend: bool,
    /// The command and its arguments.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// Lease subcommands.
#[derive(Debug, Subcommand)]
pub enum LeaseCommand {
    /// List every lease with its state and holder.
    List(BackendArg),
    /// Show one lease.
    Get {
        #[command(flatten)]
        backend: BackendArg,
        /// The lease name.
        name: String,
    },
    /// Free a lease whoever holds it (recorded in the history as a forced release).
    Release {
        #[command(flatten)]
        backend: BackendArg,
        /// Required: a forced release lets another holder start while the current one may
        /// still be working; only its fencing token stops its late writes.
        #[arg(long, required = true)]
        force: bool,
        /// The lease name.
        name: String,
    },
}

/// Arguments of `baton history`.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    #[command(flatten)]
    pub backend: BackendArg,
    /// Only this lease.
    #[arg(long, value_name = "NAME")]
    pub lease: Option<String>,
    /// Start after this cursor (printed at the end of the previous page).
    #[arg(long, value_name = "CURSOR")]
    pub after: Option<String>,
    /// At most this many records (1 to 1000).
    #[arg(long, default_value_t = 50)]
    pub limit: u32,
}

/// Arguments of `baton demo`; its hidden subcommands are the commands its agents run.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Keep the cluster and its dashboards running after the scenario, until Ctrl-C.
    #[arg(long)]
    pub keep_running: bool,
    /// Run the agents on this store instead of an embedded SQLite file: a PostgreSQL or MySQL
    /// database baton has not used yet (the verification counts every fire on record). The
    /// ledger stays a SQLite file in the demo's directory.
    #[arg(long, value_name = "URL")]
    pub backend: Option<String>,
    /// A command the demo's agents run.
    #[command(subcommand)]
    pub step: Option<DemoStep>,
}

/// The commands the demo's agents run.
#[derive(Debug, Subcommand)]
pub enum DemoStep {
    /// Work, then write the fire to the ledger through its fence.
    #[command(hide = true)]
    Write {
        /// The ledger's SQLite file.
        #[arg(long)]
        ledger: PathBuf,
        /// How long to work before writing.
        #[arg(long, default_value = "0s", value_parser = duration)]
        work: Duration,
    },
    /// Work through a partition step by step, checkpointing, then write it to the ledger.
    #[command(hide = true)]
    Partition {
        /// The ledger's SQLite file.
        #[arg(long)]
        ledger: PathBuf,
        /// How long each step takes.
        #[arg(long, default_value = "250ms", value_parser = duration)]
        step: Duration,
    },
}

/// Job subcommands.
#[derive(Debug, Subcommand)]
pub enum JobsCommand {
    /// List the registered jobs.
    List(PageArgs),
    /// Show one job with its schedule, policies and next fire.
    Show(JobArg),
    /// Run a job now (recorded as a manual execution).
    Trigger(JobArg),
    /// Pause a job: its fires are recorded as skipped until it is resumed.
    Pause(JobArg),
    /// Resume a paused job.
    Resume(JobArg),
    /// Skip the job's next fire (recorded as skipped).
    SkipNext(JobArg),
}

/// One job, by name.
#[derive(Debug, Args)]
pub struct JobArg {
    #[command(flatten)]
    pub backend: BackendArg,
    /// The job name.
    pub name: String,
}

/// A page of a listing.
#[derive(Debug, Args)]
pub struct PageArgs {
    #[command(flatten)]
    pub backend: BackendArg,
    /// Start after this cursor (printed at the end of the previous page).
    #[arg(long, value_name = "CURSOR")]
    pub after: Option<String>,
    /// At most this many records (1 to 1000).
    #[arg(long, default_value_t = 50)]
    pub limit: u32,
}

/// Execution subcommands.
#[derive(Debug, Subcommand)]
pub enum ExecutionsCommand {
    /// List executions, oldest first.
    List(ExecutionListArgs),
    /// Show one execution with its output.
    Show(ExecutionArg),
}

/// One execution, by id.
#[derive(Debug, Args)]
pub struct ExecutionArg {
    #[command(flatten)]
    pub backend: BackendArg,
    /// The execution id, as `baton executions list` prints it.
    #[arg(value_parser = execution_id)]
    pub id: i64,
}

/// Arguments of `baton executions list`.
#[derive(Debug, Args)]
pub struct ExecutionListArgs {
    #[command(flatten)]
    pub page: PageArgs,
    /// Only this job's executions.
    #[arg(long, value_name = "NAME")]
    pub job: Option<String>,
    /// Only executions in this status (scheduled, running, succeeded, failed, timed_out,
    /// abandoned, skipped, missed, cancelled).
    #[arg(long, value_name = "STATUS")]
    pub status: Option<String>,
}

/// Arguments of `baton audit`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    #[command(flatten)]
    pub backend: BackendArg,
    /// Start of the window: RFC 3339, or a duration meaning that long ago (default 1h).
    #[arg(long, value_name = "TIME", default_value = "1h")]
    pub since: String,
    /// End of the window (exclusive): RFC 3339, or a duration meaning that long ago (default
    /// 5s, so fires being recorded right now are left out).
    #[arg(long, value_name = "TIME", default_value = "5s")]
    pub until: String,
    /// A fire whose first start lags its instant by more than this is reported late.
    #[arg(long, value_name = "DURATION", default_value = "1s", value_parser = duration)]
    pub late_after: Duration,
    /// Only this job.
    #[arg(long, value_name = "NAME")]
    pub job: Option<String>,
}

/// Arguments of `baton nodes`: the node listing, or the `changes` subcommand.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct NodesArgs {
    /// Show the node state history instead of the nodes.
    #[command(subcommand)]
    pub command: Option<NodesCommand>,
    /// Where the store is; required unless a subcommand is given, which takes its own.
    #[command(flatten)]
    pub backend: Option<BackendArg>,
    /// Only nodes in this state (active, unreachable, removed, left).
    #[arg(long, value_name = "STATE")]
    pub state: Option<String>,
    /// Start after this cursor (printed at the end of the previous page).
    #[arg(long, value_name = "CURSOR")]
    pub after: Option<String>,
    /// At most this many records (1 to 1000).
    #[arg(long, default_value_t = 50)]
    pub limit: u32,
}

/// Node subcommands.
#[derive(Debug, Subcommand)]
pub enum NodesCommand {
    /// Show the node state history, oldest first: each change with its reason and the token
    /// of the incarnation concerned.
    Changes(NodeChangesArgs),
}

/// Arguments of `baton nodes changes`.
#[derive(Debug, Args)]
pub struct NodeChangesArgs {
    #[command(flatten)]
    pub page: PageArgs,
    /// Only this node's changes.
    #[arg(long, value_name = "ID")]
    pub node: Option<String>,
}

/// Batch subcommands.
#[derive(Debug, Subcommand)]
pub enum BatchCommand {
    /// List batches, oldest first.
    List(BatchListArgs),
    /// Show one batch with its partitions and their totals by state.
    Status(BatchArg),
    /// Ask a running agent to start a batch of a partitioned job it runs (needs its admin
    /// token in BATON_ADMIN_TOKEN).
    Run(BatchRunArgs),
}

/// Arguments of `baton batch run`.
#[derive(Debug, Args)]
pub struct BatchRunArgs {
    /// The partitioned job.
    pub job: String,
    /// The agent's HTTP address, as its `[http] listen`.
    #[arg(long, env = "BATON_AGENT", value_name = "URL", default_value = "http://127.0.0.1:8080")]
    pub agent: String,
}

/// Arguments of `baton batch list`.
#[derive(Debug, Args)]
pub struct BatchListArgs {
    #[command(flatten)]
    pub page: PageArgs,
    /// Only this job's batches.
    #[arg(long, value_name = "NAME")]
    pub job: Option<String>,
}

/// One batch, by id.
#[derive(Debug, Args)]
pub struct BatchArg {
    #[command(flatten)]
    pub backend: BackendArg,
    /// The batch id, as `baton batch list` prints it.
    #[arg(value_parser = batch_id)]
    pub id: i64,
}

fn batch_id(text: &str) -> Result<i64, String> {
    record_id(text, "a batch id as `baton batch list` prints it, such as 42")
}

fn execution_id(text: &str) -> Result<i64, String> {
    record_id(text, "an execution id as `baton executions list` prints it, such as 42")
}

fn record_id(text: &str, expected: &str) -> Result<i64, String> {
    text.parse::<i64>().ok().filter(|id| *id > 0).ok_or_else(|| format!("expected {expected}"))
}

/// A lease TTL the store and the timers can keep (see [`crate::ttl`]).
fn lease_ttl(text: &str) -> Result<Duration, String> {
    crate::ttl::check(duration(text)?)
}

fn duration(text: &str) -> Result<Duration, String> {
    baton::core::time::parse_duration(text).map_err(|err| err.to_string())
}
