//! Arguments of `baton bench partitions` and of its node role (`baton bench node --role etl`).

use std::path::PathBuf;

use clap::Args;

/// Arguments of `baton bench partitions`.
#[derive(Debug, Args)]
pub struct PartitionsBenchArgs {
    /// Backend URL: sqlite://PATH, postgres://USER@HOST:PORT/DB or mysql://USER@HOST:PORT/DB.
    #[arg(long, env = "BATON_BACKEND", value_name = "URL")]
    pub backend: String,
    /// Rows of the generated input.
    #[arg(long, default_value_t = 5_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub rows: u64,
    /// Partitions the input is cut into.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub partitions: u32,
    /// Input lines converted between two checkpoints.
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub commit_interval: u64,
    /// Rounds of the plain loop and the one-node run, alternating.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=20))]
    pub rounds: u32,
    /// Node processes of the failover run.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(2..=16))]
    pub nodes: u32,
    /// Skip the failover run (about 15 s at the default timing).
    #[arg(long)]
    pub skip_failover: bool,
    /// Run only the scale-up part (c), skipping (a) and (b).
    #[arg(long, conflicts_with = "skip_scale_up")]
    pub scale_up_only: bool,
    /// Skip the scale-up part (c) (about a minute per round).
    #[arg(long)]
    pub skip_scale_up: bool,
    /// Partitions of the scale-up part's batches.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(10..=1000))]
    pub scale_up_partitions: u32,
    /// Mixing steps of each scale-up partition, in millions (about 1 ns each).
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub scale_up_work: u64,
    /// Rounds of the scale-up part: each runs the batch on three nodes, then from one node
    /// joined by two.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=20))]
    pub scale_up_rounds: u32,
    /// Where the input and outputs go; by default a temporary directory removed at the end.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// What an `etl` node process runs: the partitioned ETL job over the input and output of a
/// `partitions` run.
#[derive(Debug, Clone, Default, Args)]
pub struct EtlNodeArgs {
    /// The input CSV.
    #[arg(long, value_name = "PATH")]
    pub etl_input: Option<PathBuf>,
    /// The directory the batches write their output under.
    #[arg(long, value_name = "DIR")]
    pub etl_out: Option<PathBuf>,
    /// The partitioned job's name.
    #[arg(long, value_name = "NAME")]
    pub etl_job: Option<String>,
    /// Partitions the input is cut into.
    #[arg(long, default_value_t = 12)]
    pub etl_partitions: u32,
    /// Input lines converted between two checkpoints.
    #[arg(long, default_value_t = 100_000)]
    pub etl_commit_interval: u64,
    /// Partitions the node runs at once.
    #[arg(long, default_value_t = 16)]
    pub etl_slots: u32,
}

/// What a `digest` node process runs: the digest job of the scale-up part.
#[derive(Debug, Clone, Default, Args)]
pub struct DigestNodeArgs {
    /// The partitioned job's name.
    #[arg(long, value_name = "NAME")]
    pub digest_job: Option<String>,
    /// Partitions per batch.
    #[arg(long, default_value_t = 60)]
    pub digest_partitions: u32,
    /// Mixing steps per partition.
    #[arg(long, default_value_t = 1)]
    pub digest_steps: u64,
}
