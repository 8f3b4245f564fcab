//! Benchmark scenarios for baton, reachable as `baton bench SCENARIO`.
//!
//! Every scenario prints its figures next to a floor measured in the same run on the same
//! store, so the ratio holds on a noisy machine.

use clap::{Args, Subcommand};

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
}

/// Arguments of `baton bench lease`.
#[derive(Debug, Args)]
pub struct LeaseBenchArgs {
    /// Backend URL: sqlite://PATH or postgres://USER@HOST:PORT/DB.
    #[arg(long, env = "BATON_BACKEND", value_name = "URL")]
    pub backend: String,
}

/// Runs the chosen scenario and prints its report.
pub async fn run(args: BenchArgs) -> anyhow::Result<()> {
    match args.scenario {
        Scenario::Lease(args) => anyhow::bail!("lease benchmark on {} not built yet", args.backend),
    }
}
