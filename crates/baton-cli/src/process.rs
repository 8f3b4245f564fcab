//! Child commands in process groups of their own, so that a stop reaches every process a
//! command started: signalled as a group, stopped with SIGTERM and then SIGKILL, killed as a
//! group when the command exits or if dropped while running, and, on Linux, killed as a group
//! if baton dies (see [`crate::supervisor`]).

use std::io;
use std::process::ExitStatus;
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::process::{Child, ChildStderr, ChildStdout, Command};

/// Variables of baton's own environment that the commands it runs never inherit: the store's
/// URL (credentials included) and the API tokens. A command gets the URL only when asked
/// (`pass_backend` in the agent's file, `baton exec --pass-backend`).
pub const PRIVATE_VARIABLES: [&str; 3] = ["BATON_BACKEND", "BATON_ADMIN_TOKEN", "BATON_READ_TOKEN"];

/// A command to start with [`GroupChild::spawn`]: on Linux, a supervisor that runs `program`
/// and takes its process group down if baton dies; elsewhere `program` itself. Arguments,
/// variables, a working directory and standard streams set on it reach `program` either way.
pub fn command(program: &str) -> Command {
    #[cfg(target_os = "linux")]
    return crate::supervisor::command(program);
    #[cfg(not(target_os = "linux"))]
    return Command::new(program);
}

/// A running command that leads its own process group (on Linux, its supervisor leads it).
pub struct GroupChild {
    child: Child,
    group: Pid,
    exited: bool,
}

/// How a stop ended.
pub struct Stopped {
    /// The command's exit status.
    pub status: ExitStatus,
    /// Whether SIGTERM was not enough and SIGKILL was sent.
    pub killed: bool,
}

impl GroupChild {
    /// Starts `command` as the leader of a new process group.
    pub fn spawn(command: &mut Command) -> io::Result<Self> {
        let child = command.process_group(0).spawn()?;
        let id = child.id().ok_or_else(|| io::Error::other("the command exited at once"))?;
        let group = Pid::from_raw(i32::try_from(id).map_err(io::Error::other)?);
        Ok(GroupChild { child, group, exited: false })
    }

    /// The command's standard output, if piped and not taken yet.
    pub fn take_stdout(&mut self) -> Option<ChildStdout> {
        self.child.stdout.take()
    }

    /// The command's standard error, if piped and not taken yet.
    pub fn take_stderr(&mut self) -> Option<ChildStderr> {
        self.child.stderr.take()
    }

    /// Sends `signal` to every process of the group.
    pub fn signal(&self, signal: Signal) -> nix::Result<()> {
        killpg(self.group, signal)
    }

    /// Waits until the command (the group's leader) exits, then kills what it left running in
    /// its group.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        let status = self.child.wait().await?;
        self.exited = true;
        // The group may be empty by now.
        let _ = self.signal(Signal::SIGKILL);
        Ok(status)
    }

    /// Sends SIGTERM to the group and, if the command has not exited within `kill_after`,
    /// SIGKILL.
    pub async fn stop(&mut self, kill_after: Duration) -> io::Result<Stopped> {
        self.signal_logged(Signal::SIGTERM);
        if let Ok(status) = tokio::time::timeout(kill_after, self.wait()).await {
            return Ok(Stopped { status: status?, killed: false });
        }
        self.signal_logged(Signal::SIGKILL);
        Ok(Stopped { status: self.wait().await?, killed: true })
    }

    /// Sends `signal` to the group, logging a failure.
    pub fn signal_logged(&self, signal: Signal) {
        if let Err(err) = self.signal(signal) {
            tracing::warn!(%err, ?signal, "signalling the command's process group failed");
        }
    }
}

impl Drop for GroupChild {
    fn drop(&mut self) {
        if !self.exited {
            let _ = self.signal(Signal::SIGKILL);
        }
    }
}
