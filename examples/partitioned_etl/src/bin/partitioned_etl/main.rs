//! The partitioned ETL example: generates a CSV, converts it as one batch of a partitioned
//! job over one node (this process) or several node processes sharing one store, kills one of
//! them mid-way if asked, and checks the output against a plain single-process pass.
//!
//! ```sh
//! cargo run --release -p partitioned-etl -- --rows 1000000 --verify
//! cargo run --release -p partitioned-etl -- --nodes 3 --kill-one --verify
//! cargo run --release -p partitioned-etl -- --nodes 3 --backend postgres://USER@HOST/DB
//! ```

mod fleet;
mod node;
mod run;
mod watch;

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use partitioned_etl::Etl;
use tracing_subscriber::EnvFilter;

/// Converts a generated CSV as one partitioned batch over one or several nodes.
#[derive(Debug, Parser)]
#[command(name = "partitioned_etl", args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// One node process of a run (started by the run itself).
    #[command(hide = true)]
    Node(NodeArgs),
}

/// What a run does.
#[derive(Debug, Args)]
struct RunArgs {
    /// Rows of the generated input.
    #[arg(long, default_value_t = 10_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    rows: u64,
    /// Nodes: 1 runs in this process; more start node processes besides it.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=16))]
    nodes: u32,
    /// The store the nodes share: sqlite://PATH, postgres://USER@HOST:PORT/DB, or memory://
    /// with one node. By default a SQLite file in the working directory.
    #[arg(long, value_name = "URL")]
    backend: Option<String>,
    /// Working directory for the input, the output and the default SQLite file. By default
    /// a temporary directory, removed at the end.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Kill one node process with SIGKILL once a third of the rows are checkpointed.
    #[arg(long)]
    kill_one: bool,
    /// Compare the output's SHA-256 with that of a plain single-process pass.
    #[arg(long)]
    verify: bool,
    #[command(flatten)]
    work: Work,
}

/// How every node of a run cuts and commits the work.
#[derive(Debug, Clone, Args)]
struct Work {
    /// Partitions the input is cut into.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    partitions: u32,
    /// Input lines converted between two checkpoints.
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..))]
    commit_interval: u64,
}

impl Work {
    /// The ETL over the input and output in `dir`.
    fn etl(&self, dir: &std::path::Path) -> Etl {
        Etl {
            input: dir.join("input.csv"),
            out: dir.join("out"),
            partitions: self.partitions as usize,
            commit_interval: self.commit_interval,
        }
    }

    /// The same settings as command-line arguments, for a node process.
    fn to_args(&self) -> [String; 4] {
        [
            "--partitions".into(),
            self.partitions.to_string(),
            "--commit-interval".into(),
            self.commit_interval.to_string(),
        ]
    }
}

/// Arguments of one node process.
#[derive(Debug, Args)]
struct NodeArgs {
    /// The store the nodes share.
    #[arg(long, value_name = "URL")]
    backend: String,
    /// The run's working directory.
    #[arg(long, value_name = "DIR")]
    dir: PathBuf,
    /// This node's number in the run.
    #[arg(long)]
    index: u32,
    #[command(flatten)]
    work: Work,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let filter = EnvFilter::try_from_env("BATON_LOG").unwrap_or_else(|_| EnvFilter::new("warn"));
    let colour = std::io::stderr().is_terminal();
    let log = tracing_subscriber::fmt().with_env_filter(filter).with_ansi(colour);
    log.with_writer(std::io::stderr).init();
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Node(args)) => node::serve(args).await,
        None => run::run(cli.run).await,
    }
}
