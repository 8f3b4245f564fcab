//! What is specific to one kind of server: its command line, readiness probe, preparation of
//! its directory, the user it runs as and the signals that stop it.

use std::io;
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use nix::sys::signal::Signal;
use nix::unistd::{Gid, Uid, User};

/// How long a server may take to become ready, by default.
const READY_TIMEOUT: Duration = Duration::from_secs(60);

/// An unprivileged user to run a server as (servers such as PostgreSQL refuse to run as root).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunAs {
    /// The user id.
    pub uid: Uid,
    /// The primary group id.
    pub gid: Gid,
}

impl RunAs {
    /// Looks a system user up by name.
    pub fn lookup(name: &str) -> Option<RunAs> {
        User::from_name(name).ok().flatten().map(|user| RunAs { uid: user.uid, gid: user.gid })
    }

    /// Gives `path` to this user.
    pub fn chown(self, path: &Path) -> io::Result<()> {
        nix::unistd::chown(path, Some(self.uid), Some(self.gid)).map_err(io::Error::from)
    }
}

/// Whether this process runs as root (effective user id 0).
pub fn running_as_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// What a readiness probe may look at.
#[derive(Debug, Clone, Copy)]
pub struct Probe<'a> {
    /// The server's directory.
    pub dir: &'a Path,
    /// The loopback port the server was told to listen on.
    pub port: u16,
    /// The server's process id.
    pub pid: u32,
}

/// Whether something accepts TCP connections on `127.0.0.1:port`.
pub fn tcp_accepts(port: u16) -> bool {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok()
}

/// Panics, saying what to do, unless this machine can listen on `[::1]`.
pub(super) fn require_ipv6_loopback() {
    if let Err(err) = std::net::TcpListener::bind("[::1]:0") {
        panic!(
            "this machine has no IPv6 loopback address ::1 ({err}): enable IPv6 on lo (sysctl \
             net.ipv6.conf.lo.disable_ipv6=0) to run the IPv6 tests"
        );
    }
}

type CommandFn = dyn Fn(&Path, u16) -> Command + Send + Sync;
type ProbeFn = dyn Fn(&Probe<'_>) -> bool + Send + Sync;
pub(super) type PrepareFn = dyn FnOnce(&Path) -> io::Result<()> + Send + Sync;

/// What is specific to one kind of server.
pub struct ServerSpec {
    pub(super) name: String,
    pub(super) command: Box<CommandFn>,
    pub(super) probe: Box<ProbeFn>,
    pub(super) prepare: Option<Box<PrepareFn>>,
    pub(super) run_as: Option<RunAs>,
    pub(super) stop_signal: Signal,
    pub(super) teardown_signal: Signal,
    pub(super) ready_timeout: Duration,
}

impl ServerSpec {
    /// A server named `name` (for messages) whose foreground command line `command` builds
    /// from its directory and port. By default it is ready once the port accepts TCP
    /// connections, stops on SIGTERM and is torn down with SIGKILL.
    pub fn new(
        name: impl Into<String>,
        command: impl Fn(&Path, u16) -> Command + Send + Sync + 'static,
    ) -> Self {
        ServerSpec {
            name: name.into(),
            command: Box::new(command),
            probe: Box::new(|probe| tcp_accepts(probe.port)),
            prepare: None,
            run_as: None,
            stop_signal: Signal::SIGTERM,
            teardown_signal: Signal::SIGKILL,
            ready_timeout: READY_TIMEOUT,
        }
    }

    /// Replaces the readiness probe.
    pub fn probe(mut self, probe: impl Fn(&Probe<'_>) -> bool + Send + Sync + 'static) -> Self {
        self.probe = Box::new(probe);
        self
    }

    /// Fills the fresh directory before the first launch (for example with a data directory).
    pub fn prepare(
        mut self,
        prepare: impl FnOnce(&Path) -> io::Result<()> + Send + Sync + 'static,
    ) -> Self {
        self.prepare = Some(Box::new(prepare));
        self
    }

    /// Runs the server as this user; the directory is given to it.
    pub fn run_as(mut self, user: Option<RunAs>) -> Self {
        self.run_as = user;
        self
    }

    /// The signal that asks the server to stop gracefully.
    pub fn stop_signal(mut self, signal: Signal) -> Self {
        self.stop_signal = signal;
        self
    }

    /// The signal used on drop: quick, but letting the server take its own children down.
    pub fn teardown_signal(mut self, signal: Signal) -> Self {
        self.teardown_signal = signal;
        self
    }

    /// How long the server may take to become ready.
    pub fn ready_timeout(mut self, timeout: Duration) -> Self {
        self.ready_timeout = timeout;
        self
    }
}
