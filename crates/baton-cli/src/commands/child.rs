//! Running a command under a lease: start it, stop it when the lease is lost, forward
//! termination signals.

use std::process::ExitStatus;
use std::time::Duration;

use anyhow::Context;
use baton::LeaderHandle;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::process::{Child, Command};
use tokio::signal::unix::{SignalKind, signal};

/// How the command ended.
pub struct Outcome {
    /// Its exit status.
    pub status: ExitStatus,
    /// Whether it was stopped because the lease was lost.
    pub lease_lost: bool,
}

/// Runs `argv` in its own process group with `env` added, until it exits. If the lease is
/// lost, the group gets SIGTERM and, `kill_after` later, SIGKILL. SIGTERM and SIGINT sent to
/// this process are forwarded to the group, and the lease is kept while the command finishes.
pub async fn run(
    argv: &[String],
    env: &[(&str, String)],
    lease: &LeaderHandle,
    kill_after: Duration,
) -> anyhow::Result<Outcome> {
    let (program, args) = argv.split_first().context("no command given after --")?;
    let mut child = Command::new(program)
        .args(args)
        .envs(env.iter().map(|(k, v)| (*k, v)))
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("cannot run {program:?}"))?;
    let group = child.id().map(|id| Pid::from_raw(id as i32)).context("command exited at once")?;
    let mut terminate = signal(SignalKind::terminate())?;
    let mut interrupt = signal(SignalKind::interrupt())?;
    loop {
        tokio::select! {
            status = child.wait() => return Ok(Outcome { status: status?, lease_lost: false }),
            () = lease.cancelled() => {
                let reason = lease.ensure_valid().err().map(|e| e.to_string()).unwrap_or_default();
                eprintln!("baton: {reason}; stopping the command");
                let status = stop(&mut child, group, kill_after).await?;
                return Ok(Outcome { status, lease_lost: true });
            }
            _ = terminate.recv() => forward(group, Signal::SIGTERM),
            _ = interrupt.recv() => forward(group, Signal::SIGINT),
        }
    }
}

fn forward(group: Pid, signal: Signal) {
    if let Err(err) = killpg(group, signal) {
        tracing::warn!(%err, ?signal, "forwarding the signal to the command failed");
    }
}

/// SIGTERM to the group, then SIGKILL if it has not exited within `kill_after`.
async fn stop(child: &mut Child, group: Pid, kill_after: Duration) -> anyhow::Result<ExitStatus> {
    forward(group, Signal::SIGTERM);
    if let Ok(status) = tokio::time::timeout(kill_after, child.wait()).await {
        return Ok(status?);
    }
    eprintln!("baton: the command did not stop within {kill_after:?}; killing it");
    forward(group, Signal::SIGKILL);
    Ok(child.wait().await?)
}
