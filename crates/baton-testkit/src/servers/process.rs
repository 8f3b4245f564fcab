//! A server child process in its own temporary directory, on a free loopback port.
//!
//! [`ServerSpec`] holds what differs between servers (the command line, a readiness probe,
//! optional preparation of the directory, the user to run as, the signals that stop it);
//! [`ServerProcess`] does the rest: picking the port, logging, waiting for readiness, stopping,
//! killing, pausing, restarting, and cleaning up on drop, even when a test panics.

use std::fs::{File, OpenOptions};
use std::net::{Ipv4Addr, TcpListener};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;

use super::family::{adopt_orphans, descendants, listens_on, send, wait_gone};
use super::spec::{Probe, ServerSpec};

/// How long a graceful stop may take before the process is killed.
const STOP_GRACE: Duration = Duration::from_secs(30);
/// How long the teardown on drop may take before the process is killed.
const TEARDOWN_GRACE: Duration = Duration::from_secs(10);
/// How long the children of a stopped or killed server may take to exit on their own.
const ORPHAN_GRACE: Duration = Duration::from_secs(10);
/// How often readiness and exits are polled.
const POLL: Duration = Duration::from_millis(10);
/// How many fresh ports a first start tries when the server exits before it is ready.
const START_ATTEMPTS: usize = 5;
/// How many log lines a failure message shows.
const LOG_TAIL_LINES: usize = 40;
/// Where server directories go when it exists (else the system temporary directory).
const MEMORY_SCRATCH: &str = "/dev/shm";

#[derive(Default)]
struct State {
    child: Option<Child>,
    paused: bool,
}

/// A running server process, owned by a test: dropping it kills the server (and the children
/// it started) and removes its directory.
pub struct ServerProcess {
    spec: ServerSpec,
    port: u16,
    dir: PathBuf,
    temp: Option<tempfile::TempDir>,
    state: Mutex<State>,
}

/// Why a launch did not end with a ready server.
enum NotReady {
    Exited(ExitStatus),
    TimedOut,
}

impl ServerProcess {
    /// Starts a server in a fresh temporary directory on a free loopback port and waits until
    /// it is ready. Panics, with the tail of the server's log, if it never gets ready.
    pub fn start(mut spec: ServerSpec) -> ServerProcess {
        let prefix = format!("baton-{}-", spec.name);
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix);
        // Memory-backed when available: copying and removing a data directory there is an
        // order of magnitude faster than on a disk file system.
        let temp = builder
            .tempdir_in(MEMORY_SCRATCH)
            .or_else(|_| builder.tempdir())
            .unwrap_or_else(|err| panic!("cannot create a directory for {}: {err}", spec.name));
        let dir = temp.path().to_path_buf();
        let prepare = spec.prepare.take();
        let mut server =
            ServerProcess { spec, port: 0, dir, temp: Some(temp), state: Mutex::default() };
        if let Some(user) = server.spec.run_as {
            user.chown(&server.dir).unwrap_or_else(|err| {
                panic!("cannot give {} to the server's user: {err}", server.dir.display())
            });
        }
        if let Some(prepare) = prepare {
            prepare(&server.dir).unwrap_or_else(|err| {
                panic!("cannot prepare {} for {}: {err}", server.dir.display(), server.spec.name)
            });
        }
        for attempt in 1..=START_ATTEMPTS {
            server.port = free_port();
            let mut state = server.lock();
            match server.launch(&mut state) {
                Ok(()) => {
                    drop(state);
                    return server;
                }
                // Most likely another process took the port in between: try another one.
                Err(NotReady::Exited(_)) if attempt < START_ATTEMPTS => {}
                Err(reason) => {
                    drop(state);
                    server.fail(reason);
                }
            }
        }
        unreachable!("the last attempt either returns or panics")
    }

    /// The loopback port the server listens on; it stays the same across restarts.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server's directory (removed on drop).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file receiving the server's standard output and error.
    pub fn log_path(&self) -> PathBuf {
        self.dir.join("server.log")
    }

    /// The last `lines` lines of the server's log.
    pub fn log_tail(&self, lines: usize) -> String {
        let text = std::fs::read(self.log_path()).unwrap_or_default();
        let text = String::from_utf8_lossy(&text);
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    /// The process id of the running server, if it runs.
    pub fn pid(&self) -> Option<u32> {
        self.lock().child.as_ref().map(Child::id)
    }

    /// Whether the server process is running (paused counts as running).
    pub fn is_running(&self) -> bool {
        let mut state = self.lock();
        match state.child.as_mut().map(Child::try_wait) {
            Some(Ok(None)) => true,
            Some(_) => {
                state.child = None;
                false
            }
            None => false,
        }
    }

    /// Stops the server gracefully (its stop signal, then SIGKILL after a grace period) and
    /// waits until it and its children have exited. Does nothing if it is not running.
    pub fn stop(&self) {
        let mut state = self.lock();
        self.shut_down(&mut state, self.spec.stop_signal, STOP_GRACE);
    }

    /// Kills the server process with SIGKILL, as a crash would, and waits until it and the
    /// children it leaves behind (which notice their parent's death) have exited.
    pub fn kill(&self) {
        let mut state = self.lock();
        self.shut_down(&mut state, Signal::SIGKILL, Duration::ZERO);
    }

    /// Freezes the server and every process it started (SIGSTOP).
    pub fn pause(&self) {
        let mut state = self.lock();
        let Some(pid) = state.child.as_ref().map(Child::id) else {
            panic!("cannot pause {}: it is not running", self.spec.name);
        };
        send(pid, Signal::SIGSTOP);
        for (child, _) in descendants(pid) {
            send(child, Signal::SIGSTOP);
        }
        state.paused = true;
    }

    /// Thaws a paused server (SIGCONT).
    pub fn resume(&self) {
        let mut state = self.lock();
        if let Some(pid) = state.child.as_ref().map(Child::id) {
            for (child, _) in descendants(pid) {
                send(child, Signal::SIGCONT);
            }
            send(pid, Signal::SIGCONT);
        }
        state.paused = false;
    }

    /// Starts the server again on the same directory and port (stopping it gracefully first if
    /// it runs) and waits until it is ready. Panics with the log tail if it never gets ready.
    pub fn restart(&self) {
        let mut state = self.lock();
        self.shut_down(&mut state, self.spec.stop_signal, STOP_GRACE);
        let deadline = Instant::now() + self.spec.ready_timeout;
        loop {
            match self.launch(&mut state) {
                Ok(()) => return,
                // Leftovers of the previous run (a port, shared memory) can take a moment to go.
                Err(NotReady::Exited(_)) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(100));
                }
                Err(reason) => {
                    drop(state);
                    self.fail(reason);
                }
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Spawns the server and waits for readiness; on failure nothing is left running.
    fn launch(&self, state: &mut State) -> Result<(), NotReady> {
        adopt_orphans();
        let log = self.open_log();
        let mut command = (self.spec.command)(&self.dir, self.port);
        command
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("duplicate the log file handle"))
            .stderr(log);
        if let Some(user) = self.spec.run_as {
            command.uid(user.uid.as_raw()).gid(user.gid.as_raw());
        }
        let child = command
            .spawn()
            .unwrap_or_else(|err| panic!("cannot start {} ({command:?}): {err}", self.spec.name));
        state.child = Some(child);
        state.paused = false;
        let result = self.wait_ready(state);
        if result.is_err() {
            self.shut_down(state, Signal::SIGKILL, Duration::ZERO);
        }
        result
    }

    fn wait_ready(&self, state: &mut State) -> Result<(), NotReady> {
        let deadline = Instant::now() + self.spec.ready_timeout;
        let child = state.child.as_mut().expect("just spawned");
        let pid = child.id();
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(NotReady::Exited(status));
            }
            // Another server may have taken the port since it was found free: it answers the
            // probe until this one, failing to bind, exits.
            if (self.spec.probe)(&Probe { dir: &self.dir, port: self.port, pid })
                && listens_on(pid, self.port)
            {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(NotReady::TimedOut);
            }
            std::thread::sleep(POLL);
        }
    }

    fn fail(&self, reason: NotReady) -> ! {
        let what = match reason {
            NotReady::Exited(status) => format!("exited ({status}) before it was ready"),
            NotReady::TimedOut => {
                format!("did not become ready within {:?}", self.spec.ready_timeout)
            }
        };
        panic!(
            "{} on 127.0.0.1:{} {what}; last lines of {}:\n{}",
            self.spec.name,
            self.port,
            self.log_path().display(),
            self.log_tail(LOG_TAIL_LINES)
        );
    }

    fn open_log(&self) -> File {
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.log_path())
            .unwrap_or_else(|err| panic!("cannot open {}: {err}", self.log_path().display()))
    }

    /// Sends `first` to the server, kills it after `grace`, reaps it, then waits for the
    /// children it started to exit (killing those that outlive a grace period).
    fn shut_down(&self, state: &mut State, first: Signal, grace: Duration) {
        let Some(mut child) = state.child.take() else {
            return;
        };
        let pid = child.id();
        let family = descendants(pid);
        if state.paused {
            for &(member, _) in &family {
                send(member, Signal::SIGCONT);
            }
            send(pid, Signal::SIGCONT);
            state.paused = false;
        }
        send(pid, first);
        if !wait_exit(&mut child, grace) {
            send(pid, Signal::SIGKILL);
        }
        let _ = child.wait();
        wait_gone(&family, ORPHAN_GRACE);
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let mut state = self.lock();
        self.shut_down(&mut state, self.spec.teardown_signal, TEARDOWN_GRACE);
        drop(state);
        if let Some(temp) = self.temp.take() {
            let path = temp.path().to_path_buf();
            if temp.close().is_err() {
                // A file may have been created while the tree was being removed; try again.
                let _ = std::fs::remove_dir_all(&path);
            }
        }
    }
}

/// A port that was free on the loopback interface a moment ago.
pub(super) fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .unwrap_or_else(|err| panic!("cannot find a free loopback port: {err}"))
}

/// Waits up to `grace` for the child to exit; returns whether it did.
fn wait_exit(child: &mut Child, grace: Duration) -> bool {
    let deadline = Instant::now() + grace;
    loop {
        match child.try_wait() {
            Ok(Some(_)) | Err(_) => return true,
            Ok(None) if Instant::now() >= deadline => return false,
            Ok(None) => std::thread::sleep(POLL),
        }
    }
}
