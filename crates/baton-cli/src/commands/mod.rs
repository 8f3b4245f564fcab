//! One module per subcommand.

mod age;
mod audit;
mod batch;
mod child;
mod demo;
mod exec;
mod exec_job;
mod executions;
mod history;
mod jobs;
mod lease;
mod nodes;

use std::process::ExitCode;

use anyhow::Context;
use baton::Backend;

use crate::cli::{BackendArg, Cli, Command};

/// Runs the parsed command line.
pub async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Agent(args) => crate::agent::run(args).await,
        Command::Exec(args) => exec::run(args).await,
        Command::Lease(command) => lease::run(command).await.map(|()| ExitCode::SUCCESS),
        Command::History(args) => history::run(args).await.map(|()| ExitCode::SUCCESS),
        Command::Jobs(command) => jobs::run(command).await.map(|()| ExitCode::SUCCESS),
        Command::Executions(command) => executions::run(command).await.map(|()| ExitCode::SUCCESS),
        Command::Audit(args) => audit::run(args).await,
        Command::Nodes(args) => nodes::run(args).await.map(|()| ExitCode::SUCCESS),
        Command::Batch(command) => batch::run(command).await.map(|()| ExitCode::SUCCESS),
        Command::Migrate(args) => {
            let backend = connect(&args).await?;
            backend.migrate().await?;
            println!("schema is up to date on {}", baton::redact(&args.backend));
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench(args) => baton_bench::run(args).await.map(|()| ExitCode::SUCCESS),
        Command::Demo(args) => demo::run(args).await,
    }
}

/// Opens the backend. The embedded SQLite file is migrated on open; server backends need
/// `baton migrate` once, so that routine commands never run DDL.
async fn connect(arg: &BackendArg) -> anyhow::Result<Backend> {
    let backend = baton::connect(&arg.backend).await?;
    if backend.is_embedded() {
        backend.migrate().await.context("preparing the SQLite file")?;
    }
    Ok(backend)
}
