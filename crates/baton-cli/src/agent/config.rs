//! The agent's configuration once checked: what the runtime starts.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use baton::cluster::{ClusterConfig, NodeId, PartitionSpec, Strategy};
use baton::core::job::MAX_OUTPUT_BYTES;
use baton::core::schedule::{JobName, JobPolicy};
use baton::scheduler::SchedulerConfig;
use baton::{ElectorConfig, HolderId, StoreTime};

/// The backend used when neither the file nor `BATON_BACKEND` names one.
pub const DEFAULT_BACKEND: &str = "sqlite://baton.db";
/// The HTTP address used when `[http] listen` is not set.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";
/// How long a shutdown waits for running commands by default.
pub const DEFAULT_GRACE_PERIOD: Duration = Duration::from_secs(30);
/// Bytes of output kept per command by default.
pub const DEFAULT_OUTPUT_LIMIT: usize = 64 * 1024;
/// The most bytes of output a command may keep: what an execution record keeps, less room for
/// the line saying how many earlier bytes were dropped.
pub const MAX_OUTPUT_LIMIT: usize = MAX_OUTPUT_BYTES - 64;
/// Commands of each kind run at once by default.
pub const DEFAULT_MAX_CONCURRENT: usize = 16;

/// A checked config file.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// The store's URL: state, and leases unless `lease_backend` is set.
    pub backend: String,
    /// The lease store's URL, when leases are kept apart from the state (such as in Redis).
    pub lease_backend: Option<String>,
    /// Whether commands get the store's URL as `BATON_BACKEND`.
    pub pass_backend: bool,
    /// This node's id in the cluster.
    pub node: NodeId,
    /// The same id as the holder of leader leases and the runner of executions.
    pub holder: HolderId,
    /// Whether the id was drawn at start because the file sets no `node_id`.
    pub node_generated: bool,
    /// How long a shutdown waits for running commands before stopping them.
    pub grace_period: Duration,
    /// Bytes of output kept per command (its tail).
    pub output_limit: usize,
    /// Scheduled commands run at once, and partitions run at once.
    pub max_concurrent: usize,
    /// Lease and heartbeat timing.
    pub timing: Timing,
    /// The HTTP API's settings.
    pub http: HttpConfig,
    /// Scheduled command jobs.
    pub jobs: Vec<CommandJob>,
    /// Partitioned command jobs.
    pub batches: Vec<CommandBatch>,
}

/// Lease and heartbeat timing.
#[derive(Debug, Clone)]
pub struct Timing {
    /// The leader leases' TTL, when set; the elector's defaults otherwise.
    pub lease_ttl: Option<Duration>,
    /// How often running executions and partitions are heartbeated.
    pub heartbeat_interval: Duration,
    /// Silence after which a node's executions are abandoned and its partitions move.
    pub unreachable_after: Duration,
}

impl Timing {
    /// The election timing for `holder`.
    pub fn elector(&self, holder: HolderId) -> ElectorConfig {
        let config = ElectorConfig::new(holder);
        match self.lease_ttl {
            Some(ttl) => config.with_ttl(ttl),
            None => config,
        }
    }

    /// How long a command told to stop has between SIGTERM and SIGKILL: a tenth of the
    /// unreachable threshold, so that it is gone before its work can be taken over.
    pub fn kill_grace(&self) -> Duration {
        self.unreachable_after / 10
    }
}

/// The `[http]` settings, with the tokens from the environment when set there.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// The address the API listens on.
    pub listen: SocketAddr,
    /// The bearer token that allows changes, if any.
    pub admin_token: Option<String>,
    /// The bearer token that allows reads, if any.
    pub read_token: Option<String>,
}

/// A command: program, arguments, directory and added variables.
#[derive(Debug, Clone)]
pub struct CommandSpec {
    /// The program, then its arguments.
    pub argv: Vec<String>,
    /// Where it runs; the agent's directory when `None`.
    pub working_dir: Option<PathBuf>,
    /// Variables added to the agent's environment.
    pub env: BTreeMap<String, String>,
}

/// When a job fires.
#[derive(Debug, Clone)]
pub enum ScheduleSpec {
    /// A cron pattern in an IANA zone.
    Cron {
        /// The pattern.
        expression: String,
        /// The zone.
        zone: String,
    },
    /// Every multiple of an interval since the Unix epoch.
    Every(Duration),
    /// Once.
    At(StoreTime),
}

/// A `[[job]]`: a command run on a schedule.
#[derive(Debug, Clone)]
pub struct CommandJob {
    /// The job's name.
    pub name: JobName,
    /// When it fires.
    pub schedule: ScheduleSpec,
    /// Its policies.
    pub policy: JobPolicy,
    /// What it runs.
    pub command: CommandSpec,
}

/// A `[[batch]]`: a command run once per partition, over the cluster.
#[derive(Debug, Clone)]
pub struct CommandBatch {
    /// The partitioned job's name.
    pub name: JobName,
    /// What each partition runs.
    pub command: CommandSpec,
    /// The partitions of every batch.
    pub partitions: Vec<PartitionSpec>,
    /// How partitions are spread over the nodes.
    pub strategy: Strategy,
    /// Whether idle nodes take pending partitions from the busiest while a batch runs.
    pub stealing: bool,
    /// When a batch starts by itself, if ever.
    pub schedule: Option<ScheduleSpec>,
}

impl AgentConfig {
    /// The stores as printed: the backend, and the lease store when apart; passwords masked.
    pub fn stores(&self) -> String {
        match &self.lease_backend {
            Some(leases) => format!(
                "backend {}, leases in {}",
                baton::redact(&self.backend),
                baton::redact(leases)
            ),
            None => format!("backend {}", baton::redact(&self.backend)),
        }
    }

    /// The scheduler's configuration.
    pub fn scheduler(&self) -> SchedulerConfig {
        let mut config = SchedulerConfig::new(self.timing.elector(self.holder.clone()));
        config.heartbeat_interval = self.timing.heartbeat_interval;
        config.abandon_after = self.timing.unreachable_after;
        config.max_concurrent = self.max_concurrent;
        config.shutdown_grace = self.grace_period;
        config
    }

    /// The cluster node's configuration, on `host`. Nodes silent for thirty times the
    /// unreachable threshold are removed.
    pub fn cluster(&self, host: &str) -> ClusterConfig {
        let mut config = ClusterConfig::new(self.node.clone(), host);
        config.heartbeat_interval = self.timing.heartbeat_interval;
        config.unreachable_after = self.timing.unreachable_after;
        config.removed_after = self.timing.unreachable_after * 30;
        config.max_concurrent = self.max_concurrent;
        config.shutdown_grace = self.grace_period;
        config.elector = self.timing.elector(self.holder.clone());
        config
    }
}
