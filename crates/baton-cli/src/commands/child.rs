//! Running a command under a lease: start it, stop it when the lease is lost, forward
//! termination signals.

use std::process::ExitStatus;
use std::time::Duration;

use anyhow::Context;
use baton::LeaderHandle;
use nix::sys::signal::Signal;
use tokio::signal::unix::{SignalKind, signal};

use crate::process::{self, GroupChild};

/// How the command ended.
pub struct Outcome {
    /// Its exit status.
    pub status: ExitStatus,
    /// Whether it was stopped because the lease was lost.
    pub lease_lost: bool,
}

/// Runs `argv` in its own process group with `env` added (and baton's private variables
/// removed, see [`process::PRIVATE_VARIABLES`]), until it exits. If the lease is
/// lost, the group gets SIGTERM and, `kill_after` later, SIGKILL. SIGTERM and SIGINT sent to
/// this process are forwarded to the group, and the lease is kept while the command finishes.
pub async fn run(
    argv: &[String],
    env: &[(&str, String)],
    lease: &LeaderHandle,
    kill_after: Duration,
) -> anyhow::Result<Outcome> {
    let (program, args) = argv.split_first().context("no command given after --")?;
    let mut command = process::command(program);
    for name in process::PRIVATE_VARIABLES {
        command.env_remove(name);
    }
    command.args(args).envs(env.iter().map(|(k, v)| (*k, v)));
    let mut child =
        GroupChild::spawn(&mut command).with_context(|| format!("cannot run {program:?}"))?;
    let mut terminate = signal(SignalKind::terminate())?;
    let mut interrupt = signal(SignalKind::interrupt())?;
    loop {
        tokio::select! {
            status = child.wait() => return Ok(Outcome { status: status?, lease_lost: false }),
            () = lease.cancelled() => {
                let reason = lease.ensure_valid().err().map(|e| e.to_string()).unwrap_or_default();
                eprintln!("baton: {reason}; stopping the command");
                let stopped = child.stop(kill_after).await?;
                if stopped.killed {
                    eprintln!("baton: the command did not stop within {kill_after:?}; killing it");
                }
                return Ok(Outcome { status: stopped.status, lease_lost: true });
            }
            _ = terminate.recv() => child.signal_logged(Signal::SIGTERM),
            _ = interrupt.recv() => child.signal_logged(Signal::SIGINT),
        }
    }
}
