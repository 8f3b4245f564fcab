//! The command line, as clap parses it.

use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// baton: leases with fencing tokens, leader election and cluster-wide scheduling.
#[derive(Debug, Parser)]
#[command(name = "baton", version, about, propagate_version = true)]
pub struct Cli {
    /// More log output on stderr (-v info, -vv debug); BATON_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// Where the coordination store is.
#[derive(Debug, Clone, Args)]
pub struct BackendArg {
    /// Backend URL: sqlite://PATH or postgres://USER@HOST:PORT/DB.
    #[arg(long, env = "BATON_BACKEND", value_name = "URL")]
    pub backend: String,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a command only while holding a lease (the guard for a Kubernetes CronJob).
    Exec(ExecArgs),
    /// Inspect and administer leases.
    #[command(subcommand)]
    Lease(LeaseCommand),
    /// Show the leader-change history, oldest first.
    History(HistoryArgs),
    /// Create or upgrade the backend's schema.
    Migrate(BackendArg),
    /// Run a benchmark scenario.
    Bench(baton_bench::BenchArgs),
    /// Run a local three-node demonstration.
    Demo,
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
    /// The lease to hold while the command runs.
    #[arg(long, value_name = "NAME")]
    pub lock: String,
    /// The lease's time to live; renewals happen every TTL/5 and the command is stopped at
    /// 7/10 of the TTL after the last successful renewal.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = duration)]
    pub ttl: Duration,
    /// What to do when another holder has the lease.
    #[arg(long, value_enum, default_value_t = OnHeld::Skip)]
    pub on_held: OnHeld,
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

fn duration(text: &str) -> Result<Duration, String> {
    baton::core::time::parse_duration(text).map_err(|err| err.to_string())
}
