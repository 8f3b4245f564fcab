//! Running one command for the agent: in a process group of its own, with its variables,
//! stdin closed, stdout and stderr kept in one bounded tail, and stopped with SIGTERM then
//! SIGKILL when its work is cancelled.

use std::os::unix::process::ExitStatusExt;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::Signal;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio_util::sync::CancellationToken;

use super::config::CommandSpec;
use super::lines::LineSplitter;
use super::tail::OutputTail;
use crate::process::{self, GroupChild, PRIVATE_VARIABLES};

/// Why a command could not run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The program could not be started.
    #[error("cannot run {program:?}: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// Waiting for the program failed.
    #[error("waiting for {program:?} failed: {source}")]
    Wait {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
}

/// How a command ended, with the tail of its output.
#[derive(Debug)]
pub struct Finished {
    /// Its exit status.
    pub status: ExitStatus,
    /// Whether it was stopped because its work was cancelled.
    pub stopped: bool,
    /// The tail of what it printed, if anything.
    pub output: Option<String>,
}

impl Finished {
    /// `Ok` when the command exited 0 by itself, otherwise how it ended: `exit status N`,
    /// `killed by signal N (NAME)`, or either after `stopped: ` when it was told to stop.
    pub fn result(&self) -> Result<(), String> {
        match (self.stopped, self.status.success()) {
            (false, true) => Ok(()),
            (false, false) => Err(describe(self.status)),
            (true, _) => Err(format!("stopped: {}", describe(self.status))),
        }
    }
}

/// How an exit status reads in records and logs.
pub fn describe(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit status {code}"),
        (None, Some(signal)) => match Signal::try_from(signal) {
            Ok(name) => format!("killed by signal {signal} ({name})"),
            Err(_) => format!("killed by signal {signal}"),
        },
        (None, None) => format!("ended with {status}"),
    }
}

/// Runs commands with the agent's output limit and kill grace.
#[derive(Debug, Clone)]
pub struct Runner {
    /// Bytes of output kept.
    pub output_limit: usize,
    /// Time between SIGTERM and SIGKILL when a command is stopped.
    pub kill_grace: Duration,
    /// The store's URL, handed to commands as `BATON_BACKEND` when `pass_backend` is set;
    /// `None` keeps it from them.
    pub backend: Option<String>,
}

impl Runner {
    /// Runs `spec` with `vars` added until it exits, or until `cancel` fires, which stops it
    /// (SIGTERM to its group, SIGKILL after the kill grace). Processes it leaves running in
    /// its group when it exits are killed. Lines of its stdout go to `lines` too, if given.
    pub async fn run(
        &self,
        spec: &CommandSpec,
        vars: &[(&str, String)],
        cancel: &CancellationToken,
        lines: Option<LineSplitter>,
    ) -> Result<Finished, RunError> {
        let program = spec.argv[0].clone();
        let mut command = process::command(&program);
        for name in PRIVATE_VARIABLES {
            command.env_remove(name);
        }
        if let Some(url) = &self.backend {
            command.env("BATON_BACKEND", url);
        }
        command
            .args(&spec.argv[1..])
            .envs(&spec.env)
            .envs(vars.iter().map(|(name, value)| (*name, value)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = &spec.working_dir {
            command.current_dir(dir);
        }
        let mut child = GroupChild::spawn(&mut command)
            .map_err(|source| RunError::Spawn { program: program.clone(), source })?;
        let tail = Arc::new(Mutex::new(OutputTail::new(self.output_limit)));
        let readers = [
            child.take_stdout().map(|out| tokio::spawn(pump(out, tail.clone(), lines))),
            child.take_stderr().map(|err| tokio::spawn(pump(err, tail.clone(), None))),
        ];
        let ended = tokio::select! {
            status = child.wait() => status.map(|status| (status, false)),
            () = cancel.cancelled() => child.stop(self.kill_grace).await.map(|s| (s.status, true)),
        };
        let (status, stopped) = ended.map_err(|source| RunError::Wait { program, source })?;
        for reader in readers.into_iter().flatten() {
            // A process that left the group may hold a pipe open: stop reading after a while.
            let abort = reader.abort_handle();
            if tokio::time::timeout(self.kill_grace, reader).await.is_err() {
                abort.abort();
            }
        }
        let output = tail.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).render();
        Ok(Finished { status, stopped, output })
    }
}

/// Copies a stream into the tail (and the line splitter) until it ends.
async fn pump(
    mut from: impl AsyncRead + Unpin,
    tail: Arc<Mutex<OutputTail>>,
    mut lines: Option<LineSplitter>,
) {
    let mut buffer = vec![0u8; 8192];
    loop {
        let read = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(read) => &buffer[..read],
        };
        tail.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(read);
        if let Some(lines) = &mut lines {
            lines.feed(read);
        }
    }
    if let Some(lines) = lines {
        lines.finish();
    }
}
