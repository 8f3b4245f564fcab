//! The `baton` command.

mod agent;
mod cli;
mod closed_stdout;
mod commands;
mod exit;
mod process;
#[cfg(target_os = "linux")]
mod supervisor;
mod ttl;

use std::io::IsTerminal;

use clap::Parser;
use tracing_subscriber::Layer;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

fn main() -> std::process::ExitCode {
    // Before anything else: the supervisor of a command runs no runtime and no logging.
    #[cfg(target_os = "linux")]
    if let Some(code) = supervisor::run_if_started_as_one() {
        return code;
    }
    closed_stdout::exit_quietly_when_closed();
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return exit::usage(err),
    };
    // The agent is a daemon: it logs what it does (info) unless told otherwise.
    let is_agent = matches!(cli.command, cli::Command::Agent(_));
    init_tracing(cli.verbose.saturating_add(u8::from(is_agent)));
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => return exit::report(&anyhow::Error::new(err)),
    };
    match runtime.block_on(commands::run(cli)) {
        Ok(code) => code,
        Err(err) => exit::report(&err),
    }
}

fn init_tracing(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("BATON_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    // The log filter applies to the log output only; the statement counter of `baton bench`
    // has a filter of its own.
    let log = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_filter(filter);
    tracing_subscriber::registry().with(log).with(baton_bench::statement_counter_layer()).init();
}
