//! `baton agent`: a node that runs the jobs of a config file as commands.
//!
//! The file is read and checked in full before anything starts ([`load`]); `--check` stops
//! there. Otherwise the agent connects, registers in the cluster, runs the scheduled commands
//! through a [`Scheduler`](baton::scheduler::Scheduler) and the partitioned ones through a
//! [`Cluster`](baton::cluster::Cluster), and shuts down gracefully on SIGTERM or SIGINT.

mod batch_starts;
mod batches;
mod config;
mod directive;
mod error;
mod http;
mod jobs;
mod lines;
mod load;
mod locate;
mod runner;
mod runtime;
mod schema;
mod schema_values;
mod tail;
mod validate;

use std::path::Path;
use std::process::ExitCode;

use baton::core::lease::MAX_NAME_BYTES;

use crate::cli::AgentArgs;
use crate::exit;
use config::AgentConfig;

/// Runs `baton agent`.
pub async fn run(args: AgentArgs) -> anyhow::Result<ExitCode> {
    let host = host_name();
    let config = match load::load(&args.config, &validate::Environment::current(), &host) {
        Ok(config) => config,
        Err(err) => {
            eprintln!("baton: error: {err}");
            return Ok(ExitCode::from(exit::INVALID_INPUT));
        }
    };
    if args.check {
        println!("{}", summary(&args.config, &config));
        return Ok(ExitCode::SUCCESS);
    }
    match runtime::run(config, &host).await? {
        runtime::Ending::Graceful => Ok(ExitCode::SUCCESS),
        runtime::Ending::Forced => Ok(ExitCode::from(exit::FAILURE)),
    }
}

/// One line saying what the file defines.
fn summary(file: &Path, config: &AgentConfig) -> String {
    let count =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let set = |token: &Option<String>| if token.is_some() { "set" } else { "not set" };
    let node = if config.node_generated {
        format!("node id drawn at start (such as {})", config.node)
    } else {
        format!("node {}", config.node)
    };
    format!(
        "{}: ok: {}, {}; {node}; {}; http {} (admin token {}, read token {})",
        file.display(),
        count(config.jobs.len(), "job", "jobs"),
        count(config.batches.len(), "batch", "batches"),
        config.stores(),
        config.http.listen,
        set(&config.http.admin_token),
        set(&config.http.read_token),
    )
}

/// This machine's host name without whitespace or control characters; `node` when it cannot
/// be read or does not fit in a node id.
fn host_name() -> String {
    let host: String = nix::unistd::gethostname()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .filter(|c| !c.is_control() && !c.is_whitespace())
        .collect();
    if host.is_empty() || host.len() > MAX_NAME_BYTES { "node".to_owned() } else { host }
}
