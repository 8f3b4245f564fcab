//! A throwaway Redis server started from `redis-server` on the PATH.
//!
//! It listens on a free loopback port, keeps its files in its own temporary directory and
//! starts in milliseconds. Without persistence (the default) a restart empties the dataset; with
//! an append-only file it keeps every acknowledged write, even across a kill.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::process::ServerProcess;
use super::spec::{ServerSpec, require_ipv6_loopback, tcp_accepts};
use super::tls::ServerTls;

const NOT_FOUND: &str = "redis-server not found on the PATH: install the redis-server package \
                         (scripts/test does this when run as root)";

/// How a [`RedisServer`] is started.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RedisConfig {
    /// Keep an append-only file, synced on every write (`appendonly yes`, `appendfsync
    /// always`), so that a restart, even after a kill, keeps every acknowledged write. Without
    /// it nothing is kept.
    pub append_only: bool,
    /// Require this password from clients (`requirepass`).
    pub password: Option<String>,
    /// Also listen on the IPv6 loopback address `::1` (see [`RedisServer::url_ipv6`]);
    /// starting panics when the machine has none.
    pub ipv6: bool,
    /// Replicate from the server at this loopback port (`replicaof 127.0.0.1 PORT`).
    pub replica_of: Option<u16>,
    /// Serve TLS only (`tls-port`, no plain port), with this certificate; with a client CA,
    /// every client must present a certificate it signed (`tls-auth-clients yes`). Starting
    /// panics, saying so, when the machine's `redis-server` was built without TLS.
    pub tls: Option<ServerTls>,
}

/// A Redis server on a free loopback port, in its own temporary directory. Dropping it kills
/// the server and removes the directory.
pub struct RedisServer {
    process: ServerProcess,
    config: RedisConfig,
}

impl RedisServer {
    /// Starts a server without persistence and waits until it answers `PING`. Panics if
    /// `redis-server` is missing or the server does not start (with the tail of its log).
    pub fn start() -> RedisServer {
        RedisServer::start_with(RedisConfig::default())
    }

    /// Starts a server configured as `config` says; see [`start`](Self::start).
    pub fn start_with(config: RedisConfig) -> RedisServer {
        if config.ipv6 {
            require_ipv6_loopback();
        }
        let binary = binary();
        if config.tls.is_some() {
            require_tls(&binary);
        }
        let settings = config.clone();
        let spec = ServerSpec::new("redis", move |dir, port| {
            let mut command = Command::new(&binary);
            match &settings.tls {
                None => command.args(["--port", &port.to_string()]),
                Some(tls) => {
                    command.args(["--port", "0", "--tls-port", &port.to_string()]);
                    command.arg("--tls-cert-file").arg(dir.join(ServerTls::CERT));
                    command.arg("--tls-key-file").arg(dir.join(ServerTls::KEY));
                    match tls.client_ca_pem {
                        Some(_) => command
                            .arg("--tls-ca-cert-file")
                            .arg(dir.join(ServerTls::CLIENT_CA))
                            .args(["--tls-auth-clients", "yes"]),
                        None => command.args(["--tls-auth-clients", "no"]),
                    }
                }
            };
            command
                .args(["--bind", "127.0.0.1"])
                .args(settings.ipv6.then_some("::1"))
                .arg("--dir")
                .arg(dir)
                .args(["--save", "", "--daemonize", "no", "--logfile", ""])
                // For `DEBUG SLEEP` (Redis 7 and later); from loopback clients only.
                .args(["--enable-debug-command", "local"])
                // A replica's first sync starts at once instead of waiting for others to join.
                .args(["--repl-diskless-sync-delay", "0"]);
            match settings.append_only {
                true => command.args(["--appendonly", "yes", "--appendfsync", "always"]),
                false => command.args(["--appendonly", "no"]),
            };
            if let Some(password) = &settings.password {
                command.args(["--requirepass", password]);
            }
            if let Some(upstream) = settings.replica_of {
                command.args(["--replicaof", "127.0.0.1", &upstream.to_string()]);
            }
            command
        })
        .probe({
            let (password, tls) = (config.password.clone(), config.tls.is_some());
            // Over TLS, listening is the readiness this probe can see: a server without
            // persistence loads nothing before it listens.
            move |probe| match tls {
                true => tcp_accepts(probe.port),
                false => answers_ping(probe.port, password.as_deref()),
            }
        });
        let spec = match config.tls.clone() {
            Some(tls) => spec.prepare(move |dir| tls.write_files(dir, None)),
            None => spec,
        };
        RedisServer { process: ServerProcess::start(spec), config }
    }

    /// The URL of database 0, with the password if one is required, for example
    /// `redis://127.0.0.1:40123/0` (`rediss://…` over TLS, without TLS options).
    pub fn url(&self) -> String {
        let scheme = if self.config.tls.is_some() { "rediss" } else { "redis" };
        match &self.config.password {
            Some(password) => format!("{scheme}://:{password}@127.0.0.1:{}/0", self.port()),
            None => format!("{scheme}://127.0.0.1:{}/0", self.port()),
        }
    }

    /// The same URL with the IPv6 loopback address, such as `redis://[::1]:40123/0`; the
    /// server listens there when started with [`RedisConfig::ipv6`].
    pub fn url_ipv6(&self) -> String {
        self.url().replace("127.0.0.1", "[::1]")
    }

    /// The loopback port, the same across restarts.
    pub fn port(&self) -> u16 {
        self.process.port()
    }

    /// The server process: kill, pause, resume or restart it there. Restarted, it reloads its
    /// append-only file if it keeps one, and starts empty otherwise.
    pub fn process(&self) -> &ServerProcess {
        &self.process
    }
}

/// Ready once the server answers `PING`, after `AUTH` when it requires a password (it accepts
/// connections before it has loaded its append-only file, and answers `-LOADING` until then).
pub(super) fn answers_ping(port: u16, password: Option<&str>) -> bool {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let Ok(mut stream) = TcpStream::connect_timeout(&addr, Duration::from_millis(200)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    let mut request = Vec::new();
    if let Some(password) = password {
        let auth = format!("*2\r\n$4\r\nAUTH\r\n${}\r\n{password}\r\n", password.len());
        request.extend_from_slice(auth.as_bytes());
    }
    request.extend_from_slice(b"PING\r\n");
    if stream.write_all(&request).is_err() {
        return false;
    }
    // Read until the PONG, an error reply (such as -LOADING) or the read timeout.
    let mut answer = Vec::new();
    let mut chunk = [0u8; 64];
    loop {
        if answer.ends_with(b"+PONG\r\n") {
            return true;
        }
        if answer.contains(&b'-') {
            return false;
        }
        match stream.read(&mut chunk) {
            Ok(read) if read > 0 => answer.extend_from_slice(&chunk[..read]),
            _ => return false,
        }
    }
}

/// Panics, saying so, unless `binary` was built with TLS: one built without refuses the
/// `tls-port` directive ("Bad directive"), while one built with it tries to load the (missing)
/// certificate, and both exit at once.
fn require_tls(binary: &Path) {
    let output = Command::new(binary)
        .args(["--port", "0", "--tls-port", "1", "--tls-auth-clients", "no"])
        .args(["--tls-cert-file", "/nonexistent", "--tls-key-file", "/nonexistent"])
        .args(["--save", "", "--appendonly", "no", "--logfile", ""])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap_or_else(|err| panic!("cannot run {}: {err}", binary.display()));
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    if text.contains("Bad directive") {
        panic!(
            "{} was built without TLS (it refuses --tls-port): install a redis-server package \
             built with TLS (Debian's is) to run the TLS tests",
            binary.display()
        );
    }
}

/// `redis-server` from the PATH.
pub(super) fn binary() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("redis-server"))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| panic!("{NOT_FOUND}"))
}
