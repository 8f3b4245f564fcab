//! One module per subcommand.

mod age;
mod agent_client;
mod audit;
mod batch;
mod batch_run;
mod child;
mod completions;
mod demo;
mod exec;
mod exec_job;
mod executions;
mod history;
mod jobs;
mod lease;
mod nodes;
mod output;
mod status;

use std::process::ExitCode;

use std::sync::Arc;

use anyhow::Context;
use baton::{Backend, LeaseStore, UrlKind};

use crate::cli::{BackendArg, Cli, Command};

/// Runs the parsed command line.
pub async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Agent(args) => crate::agent::run(args).await,
        Command::Exec(args) => exec::run(args).await,
        Command::Lease(command) => {
            lease::run(command, cli.output).await.map(|()| ExitCode::SUCCESS)
        }
        Command::History(args) => history::run(args, cli.output).await.map(|()| ExitCode::SUCCESS),
        Command::Jobs(command) => jobs::run(command, cli.output).await.map(|()| ExitCode::SUCCESS),
        Command::Executions(command) => {
            executions::run(command, cli.output).await.map(|()| ExitCode::SUCCESS)
        }
        Command::Audit(args) => audit::run(args, cli.output).await,
        Command::Nodes(args) => nodes::run(args, cli.output).await.map(|()| ExitCode::SUCCESS),
        Command::Batch(command) => {
            batch::run(command, cli.output).await.map(|()| ExitCode::SUCCESS)
        }
        Command::Status(args) => status::run(args, cli.output).await.map(|()| ExitCode::SUCCESS),
        Command::Migrate(args) => {
            let backend = open(&args).await?;
            for migrated in backend.migrate().await? {
                println!("{}", migrate_line(&migrated));
            }
            println!("schema is up to date on {}", baton::redact(&args.backend));
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench(args) => baton_bench::run(args).await.map(|()| ExitCode::SUCCESS),
        Command::Demo(args) => demo::run(args).await,
        Command::Completions(args) => {
            completions::run(&args);
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// What `baton migrate` did to one store, on one line.
fn migrate_line(migrated: &baton::Migrated) -> String {
    let applied = &migrated.applied;
    match applied.len() {
        0 => format!("{}: no migration to apply", migrated.store),
        count => {
            let names = applied.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
            let plural = if count == 1 { "" } else { "s" };
            format!("{}: applied {count} migration{plural}: {names}", migrated.store)
        }
    }
}

/// Opens the backend: state in `--backend`, leases there too unless `--lease-backend` names
/// another store. The embedded SQLite file is migrated on open; server backends need
/// `baton migrate` once, so that routine commands never run DDL.
async fn connect(arg: &BackendArg) -> anyhow::Result<Backend> {
    migrate_embedded(open(arg).await?).await
}

/// Opens the backend as [`connect`] does, without migrating anything.
async fn open(arg: &BackendArg) -> anyhow::Result<Backend> {
    if baton::url_kind(&arg.backend)? == UrlKind::LeasesOnly {
        anyhow::bail!(
            "{} holds leases only, and this needs the state store too: give that as --backend \
             (sqlite://PATH, postgres://USER@HOST:PORT/DB or mysql://USER@HOST:PORT/DB) and \
             this one as --lease-backend",
            baton::redact(&arg.backend)
        );
    }
    let leases = arg.lease_backend.as_deref().unwrap_or(&arg.backend);
    Ok(baton::connect_split(leases, &arg.backend).await?)
}

/// Opens the lease store only: `--lease-backend`, or else `--backend`, which may then be a
/// lease-only store such as Redis.
async fn connect_leases(arg: &BackendArg) -> anyhow::Result<Arc<dyn LeaseStore>> {
    let url = arg.lease_backend.as_deref().unwrap_or(&arg.backend);
    if baton::url_kind(url)? == UrlKind::LeasesOnly {
        return Ok(baton::connect_leases(url).await?);
    }
    Ok(migrate_embedded(baton::connect(url).await?).await?.leases())
}

async fn migrate_embedded(backend: Backend) -> anyhow::Result<Backend> {
    if backend.is_embedded() {
        backend.migrate().await.context("preparing the SQLite file")?;
    }
    Ok(backend)
}
