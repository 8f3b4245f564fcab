//! The config file as written: every table and key, unknown keys refused. Values are checked
//! and turned into an [`AgentConfig`](super::config::AgentConfig) by
//! [`validate`](super::validate).

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, SeqAccess, Visitor};

use super::schema_values::{CommandLine, DurationText};

/// The whole file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawConfig {
    /// The store's URL.
    pub backend: Option<String>,
    /// The lease store's URL, when leases are kept apart from the state.
    pub lease_backend: Option<String>,
    /// Whether commands get the store's URL as `BATON_BACKEND`.
    pub pass_backend: Option<bool>,
    /// This node's id.
    pub node_id: Option<String>,
    /// How long a shutdown waits for running commands.
    pub grace_period: Option<DurationText>,
    /// Bytes of output kept per command.
    pub output_limit: Option<u64>,
    /// Commands run at once, per kind.
    pub max_concurrent: Option<u32>,
    /// Lease and heartbeat timing.
    #[serde(default)]
    pub timing: RawTiming,
    /// The HTTP API.
    #[serde(default)]
    pub http: RawHttp,
    /// Scheduled command jobs.
    #[serde(default, rename = "job")]
    pub jobs: Vec<RawJob>,
    /// Partitioned command jobs.
    #[serde(default, rename = "batch")]
    pub batches: Vec<RawBatch>,
}

/// The `[timing]` table.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTiming {
    /// TTL of the leader leases.
    pub lease_ttl: Option<DurationText>,
    /// How often running work is heartbeated.
    pub heartbeat_interval: Option<DurationText>,
    /// Silence after which a node's work is taken over.
    pub unreachable_after: Option<DurationText>,
}

/// The `[http]` table.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawHttp {
    /// The address to listen on.
    pub listen: Option<String>,
    /// The bearer token for changes.
    pub admin_token: Option<String>,
    /// The bearer token for reads.
    pub read_token: Option<String>,
}

/// One `[[job]]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawJob {
    /// The job's name.
    pub name: Option<String>,
    /// Program and arguments.
    pub command: Option<CommandLine>,
    /// Where the command runs.
    pub working_dir: Option<String>,
    /// Variables added to the command's environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// A cron pattern.
    pub cron: Option<String>,
    /// A fixed interval.
    pub every: Option<DurationText>,
    /// A single instant.
    pub at: Option<String>,
    /// The cron pattern's zone.
    pub time_zone: Option<String>,
    /// Overlap policy.
    pub overlap: Option<String>,
    /// Misfire policy.
    pub misfire: Option<String>,
    /// Lateness that makes a misfire.
    pub misfire_threshold: Option<DurationText>,
    /// How far back `run-all` catches up.
    pub catch_up_window: Option<DurationText>,
    /// The most fires one catch-up runs.
    pub catch_up_max: Option<u32>,
    /// Latest start after the fire's instant.
    pub starting_deadline: Option<DurationText>,
    /// Random start delay.
    pub jitter: Option<DurationText>,
    /// Longest run.
    pub timeout: Option<DurationText>,
    /// Retries of failed attempts.
    pub retry: Option<RawRetry>,
    /// History kept.
    pub retention: Option<RawRetention>,
}

/// A job's `retry` table.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRetry {
    /// Attempts per fire, the first included.
    pub max_attempts: Option<u32>,
    /// The wait after the first failure.
    pub initial_backoff: Option<DurationText>,
    /// The longest wait.
    pub max_backoff: Option<DurationText>,
}

/// A job's `retention` table.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRetention {
    /// Succeeded executions kept.
    pub keep_succeeded: Option<u32>,
    /// Other finished executions kept.
    pub keep_failed: Option<u32>,
    /// Age past which executions are deleted.
    pub max_age: Option<DurationText>,
}

/// One `[[batch]]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBatch {
    /// The partitioned job's name.
    pub name: Option<String>,
    /// Program and arguments, run once per partition.
    pub command: Option<CommandLine>,
    /// Where the command runs.
    pub working_dir: Option<String>,
    /// Variables added to the command's environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// How the work is split.
    pub partitions: Option<RawPartitions>,
    /// How partitions are spread over the nodes.
    pub strategy: Option<String>,
    /// Whether idle nodes take pending partitions from the busiest.
    pub stealing: Option<bool>,
    /// Whether a started partition may move to another node.
    pub transferable: Option<bool>,
    /// A cron pattern starting a batch at each fire.
    pub cron: Option<String>,
    /// A fixed interval starting a batch at each fire.
    pub every: Option<DurationText>,
    /// A single instant starting a batch.
    pub at: Option<String>,
    /// The cron pattern's zone.
    pub time_zone: Option<String>,
}

/// `partitions`: a count, or the keys.
#[derive(Debug)]
pub enum RawPartitions {
    /// This many partitions, keyed `0`, `1`, ….
    Count(i64),
    /// One partition per key.
    Keys(Vec<String>),
}

impl<'de> Deserialize<'de> for RawPartitions {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(PartitionsVisitor)
    }
}

struct PartitionsVisitor;

impl<'de> Visitor<'de> for PartitionsVisitor {
    type Value = RawPartitions;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(r#"a partition count such as 8, or a list of keys such as ["eu", "us"]"#)
    }

    fn visit_i64<E: de::Error>(self, count: i64) -> Result<Self::Value, E> {
        Ok(RawPartitions::Count(count))
    }

    fn visit_u64<E: de::Error>(self, count: u64) -> Result<Self::Value, E> {
        Ok(RawPartitions::Count(i64::try_from(count).unwrap_or(i64::MAX)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut keys = Vec::new();
        while let Some(key) = seq.next_element::<String>()? {
            keys.push(key);
        }
        Ok(RawPartitions::Keys(keys))
    }
}
