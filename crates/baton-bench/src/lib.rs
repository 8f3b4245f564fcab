//! Benchmark scenarios for baton, reachable as `baton bench SCENARIO`.
//!
//! Every scenario prints its figures next to a floor measured in the same run on the same
//! store, so the ratio holds on a noisy machine. The report goes to stdout, progress to stderr.
//!
//! Statements per operation are counted from sqlx's statement events by the layer
//! [`statement_counter_layer`], which the `baton` command installs; without it they read
//! "n/a".

mod accounting;
mod agent_idle;
mod args;
mod bench_jobs;
mod cleanup;
mod client;
mod commits;
mod completions;
mod crash;
mod cron;
mod cron_report;
mod dashboard;
mod digest;
mod exec_record;
mod executions;
mod executions_report;
mod floor;
mod handover;
mod idle;
mod idle_nodes;
mod idle_report;
mod lease;
mod lease_floor;
mod lease_floor_azblob;
mod lease_floor_consul;
mod lease_floor_dynamodb;
mod lease_floor_etcd;
mod lease_floor_kube;
mod lease_floor_redis;
mod lease_floor_zk;
mod lease_only;
mod lease_only_report;
mod lease_ops;
mod lease_plain;
mod lease_report;
mod machine;
mod node;
mod node_cluster;
mod node_exec;
mod node_scheduled;
mod nodes;
mod partitions;
mod partitions_args;
mod partitions_failover;
mod partitions_report;
mod partitions_scale_up;
mod partitions_single;
mod probe;
mod report;
mod scenario;
mod statements;
mod store_clock;
mod tally;
mod tally_jobs;
mod tally_leases;
mod tally_report;
mod target;
mod timed;
mod wire;
mod writes;

use std::time::Duration;

use clap::{Args, Subcommand};

pub use agent_idle::AgentBenchArgs;
pub use args::{CronBenchArgs, ExecutionsBenchArgs, IdleBenchArgs, NodeArgs, NodeRole};
pub use dashboard::DashboardBenchArgs;
pub use partitions_args::{DigestNodeArgs, EtlNodeArgs, PartitionsBenchArgs};
pub use statements::statement_counter_layer;

/// Arguments of `baton bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// The scenario to run.
    #[command(subcommand)]
    pub scenario: Scenario,
}

/// The benchmark scenarios.
#[derive(Debug, Subcommand)]
#[non_exhaustive]
pub enum Scenario {
    /// Lease operations, graceful handover and crash failover, against the floor.
    Lease(LeaseBenchArgs),
    /// Node processes running jobs that fire every second: duplicates, missed fires, fire lag,
    /// and what scheduling costs per fire.
    Cron(CronBenchArgs),
    /// Executions recorded up front, drained by worker processes, against the floor.
    Executions(ExecutionsBenchArgs),
    /// Idle scheduler node processes with few and many jobs: statements per second per node.
    Idle(IdleBenchArgs),
    /// The partitioned ETL: one node against a plain loop, and the failover of a node killed
    /// mid-run among several.
    Partitions(PartitionsBenchArgs),
    /// An idle agent's resident memory and CPU, against a process holding one lease.
    Agent(AgentBenchArgs),
    /// The dashboard's pages and the API's listings over a long history: server-side render
    /// time against one page read straight from the store.
    Dashboard(DashboardBenchArgs),
    /// One node process of a multi-process scenario (started by the scenario itself).
    #[command(hide = true)]
    Node(NodeArgs),
}

/// Arguments of `baton bench lease`.
#[derive(Debug, Args)]
pub struct LeaseBenchArgs {
    /// Backend URL: a store for everything (SQLite, PostgreSQL, MySQL) or a lease-only store
    /// whose floor the benchmark knows; the help lists their URLs.
    #[arg(long, env = "BATON_BACKEND", value_name = "URL", help = lease_floor::backend_help())]
    pub backend: String,
    /// How long each throughput measurement runs.
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = duration)]
    pub duration: Duration,
    /// Graceful handovers measured.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..))]
    pub rounds: u32,
    /// Crash failovers measured (each takes about the TTL: 10 s, or the store's shortest if longer).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub crash_rounds: u32,
    /// Skip the crash failover scenario (about a minute).
    #[arg(long)]
    pub skip_crash: bool,
    /// Leases held by one elector in the idle scenario.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    pub idle_leases: u32,
}

pub(crate) fn duration(text: &str) -> Result<Duration, String> {
    match baton::core::time::parse_duration(text) {
        Ok(value) if value.is_zero() => Err("the duration must be positive".to_string()),
        Ok(value) => Ok(value),
        Err(err) => Err(err.to_string()),
    }
}

/// Runs the chosen scenario and prints its report.
pub async fn run(args: BenchArgs) -> anyhow::Result<()> {
    match args.scenario {
        Scenario::Lease(args) => lease::run(args).await,
        Scenario::Cron(args) => cron::run(args).await,
        Scenario::Executions(args) => executions::run(args).await,
        Scenario::Idle(args) => idle_nodes::run(args).await,
        Scenario::Partitions(args) => partitions::run(args).await,
        Scenario::Agent(args) => agent_idle::run(args).await,
        Scenario::Dashboard(args) => dashboard::run(args).await,
        Scenario::Node(args) => node::run(args).await,
    }
}
