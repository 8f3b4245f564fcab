//! Arguments of the scheduler scenarios (`cron`, `executions`, `idle`) and of the hidden node
//! process they start (`baton bench node`).

use std::time::Duration;

use clap::{Args, ValueEnum};

use crate::duration;
use crate::partitions_args::{DigestNodeArgs, EtlNodeArgs};

/// Arguments of `baton bench cron`.
#[derive(Debug, Args)]
pub struct CronBenchArgs {
    /// Backend URL: sqlite://PATH, postgres://USER@HOST:PORT/DB or mysql://USER@HOST:PORT/DB.
    #[arg(long, env = "BATON_BACKEND", value_name = "URL")]
    pub backend: String,
    /// How long the fires are measured (after a warm-up).
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = duration)]
    pub duration: Duration,
    /// Jobs firing every second.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub jobs: u32,
    /// Node processes.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=16))]
    pub nodes: u32,
    /// How long the nodes run before the measured window opens.
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = duration)]
    pub warmup: Duration,
}

/// Arguments of `baton bench executions`.
#[derive(Debug, Args)]
pub struct ExecutionsBenchArgs {
    /// Backend URL: sqlite://PATH, postgres://USER@HOST:PORT/DB or mysql://USER@HOST:PORT/DB.
    #[arg(long, env = "BATON_BACKEND", value_name = "URL")]
    pub backend: String,
    /// Executions recorded up front and drained, in each mode.
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u32).range(1..))]
    pub executions: u32,
    /// Worker processes.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=16))]
    pub nodes: u32,
    /// Jobs the executions belong to.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub jobs: u32,
    /// Executions one claim takes in the batched modes.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub batch: u32,
    /// How long each floor measurement runs (one before each mode and one at the end).
    #[arg(long, value_name = "DURATION", default_value = "4s", value_parser = duration)]
    pub floor_duration: Duration,
    /// The longest a mode's drain is measured; what is left then is reported and settled.
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = duration)]
    pub limit: Duration,
}

/// Arguments of `baton bench idle`.
#[derive(Debug, Args)]
pub struct IdleBenchArgs {
    /// Backend URL: sqlite://PATH, postgres://USER@HOST:PORT/DB or mysql://USER@HOST:PORT/DB.
    #[arg(long, env = "BATON_BACKEND", value_name = "URL")]
    pub backend: String,
    /// How long each idle measurement runs.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = duration)]
    pub duration: Duration,
    /// Jobs of the small run.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub few: u32,
    /// Jobs of the large run.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..))]
    pub many: u32,
    /// Node processes.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=16))]
    pub nodes: u32,
    /// How long the nodes run before the measured window opens: past the leader's first
    /// reload of the jobs (every 30 s), which lists again every job registered since its term
    /// began, so that the window is the steady state.
    #[arg(long, value_name = "DURATION", default_value = "40s", value_parser = duration)]
    pub warmup: Duration,
}

/// Arguments of `baton bench node`, one node process that a scenario starts; not for direct
/// use.
#[derive(Debug, Clone, Args)]
pub struct NodeArgs {
    /// Backend URL.
    #[arg(long, value_name = "URL")]
    pub backend: String,
    /// What the node does.
    #[arg(long, value_enum)]
    pub role: NodeRole,
    /// The run this node belongs to (names its jobs and its holder id).
    #[arg(long)]
    pub run: String,
    /// This node's number in the run.
    #[arg(long, default_value_t = 0)]
    pub index: u32,
    /// Jobs to register (cron, idle) or to drain (executions).
    #[arg(long, default_value_t = 0)]
    pub jobs: u32,
    /// Executions one claim takes (batched executions roles).
    #[arg(long, default_value_t = 100)]
    pub batch: u32,
    /// Records each job keeps (cron role).
    #[arg(long, default_value_t = 100)]
    pub keep: u32,
    /// The jobs' cron expression (idle role).
    #[arg(long, value_name = "EXPRESSION")]
    pub cron: Option<String>,
    /// The partitioned ETL (etl role).
    #[command(flatten)]
    pub etl: EtlNodeArgs,
    /// The digest job (digest role).
    #[command(flatten)]
    pub digest: DigestNodeArgs,
}

/// What a node process does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum NodeRole {
    /// A scheduler with jobs firing every second.
    Cron,
    /// A scheduler with jobs that do not fire while measured.
    Idle,
    /// A scheduler draining executions with its default worker.
    ExecDefault,
    /// A worker loop claiming batches and finishing them with `complete_batch`.
    ExecBatched,
    /// A cluster node running the partitioned ETL.
    Etl,
    /// A cluster node running the digest job of the scale-up part.
    Digest,
}

impl NodeRole {
    /// The executions mode this role drains, naming its jobs.
    pub(crate) fn exec_mode(self) -> Option<&'static str> {
        match self {
            NodeRole::ExecDefault => Some("default"),
            NodeRole::ExecBatched => Some("batched"),
            NodeRole::Cron | NodeRole::Idle | NodeRole::Etl | NodeRole::Digest => None,
        }
    }

    /// The role's name on the command line.
    pub(crate) fn arg(self) -> &'static str {
        match self {
            NodeRole::Cron => "cron",
            NodeRole::Idle => "idle",
            NodeRole::ExecDefault => "exec-default",
            NodeRole::ExecBatched => "exec-batched",
            NodeRole::Etl => "etl",
            NodeRole::Digest => "digest",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn role_names_match_the_command_line() {
        for role in NodeRole::value_variants() {
            let parsed = NodeRole::from_str(role.arg(), false).expect("a known role");
            assert_eq!(parsed, *role);
        }
    }
}
