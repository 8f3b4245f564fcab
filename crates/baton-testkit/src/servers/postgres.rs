//! A throwaway PostgreSQL server built from the machine's binaries.
//!
//! The cluster is created once per machine and PostgreSQL version with `initdb` into a cached
//! template directory (published atomically with a rename), and copied for each server, so a
//! server starts in well under a second. PostgreSQL refuses to run as root: when the tests run
//! as root, the server runs as the `postgres` system user.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use nix::sys::signal::Signal;

use super::postgres_config::PostgresConfig;
use super::process::ServerProcess;
use super::spec::{Probe, RunAs, ServerSpec, require_ipv6_loopback, running_as_root, tcp_accepts};
use super::template::{self, copy_tree};

const NOT_FOUND: &str = "PostgreSQL server binaries not found: install the postgresql package \
                         (scripts/test does this when run as root)";
/// Bumped whenever the template's `initdb` options change, so stale templates are not reused.
const TEMPLATE_FORMAT: &str = "v1";
/// The superuser created by `initdb` and used in [`PostgresServer::url`].
const SUPERUSER: &str = "postgres";

/// A PostgreSQL server on a free loopback port, in its own temporary directory, with trust
/// authentication. Dropping it shuts the server down and removes the directory.
pub struct PostgresServer {
    process: ServerProcess,
    version: String,
}

/// Where the binaries are and which version they are, found once per process.
struct Installation {
    bindir: PathBuf,
    version: String,
}

impl PostgresServer {
    /// Starts a server and waits until it accepts connections. Panics if the binaries are
    /// missing or the server does not start (with the tail of its log).
    pub fn start() -> PostgresServer {
        PostgresServer::start_with(PostgresConfig::default())
    }

    /// Starts a server configured as `config` says; see [`start`](Self::start).
    pub fn start_with(config: PostgresConfig) -> PostgresServer {
        if config.ipv6 {
            require_ipv6_loopback();
        }
        let files = config.clone();
        let installation = installation();
        let run_as = server_user();
        let template = template(installation, run_as);
        let postgres = installation.bindir.join("postgres");
        let spec = ServerSpec::new("postgres", move |dir, port| {
            let mut command = Command::new(&postgres);
            command
                .arg("-D")
                .arg(dir.join("data"))
                .args(["-p", &port.to_string()])
                .arg("-k")
                .arg(dir)
                .args(["-c", &format!("listen_addresses={}", config.listen_addresses())])
                // Safe here: the tests stop or kill the server, never the machine.
                .args(["-c", "fsync=off"])
                .args(["-c", "shared_buffers=16MB"])
                .args(["-c", "max_connections=64"]);
            config.tls_arguments(&mut command, dir);
            command
        })
        .prepare(move |dir| {
            copy_tree(&template, &dir.join("data"), run_as)?;
            files.write_files(dir, run_as)
        })
        .probe(postmaster_ready)
        .run_as(run_as)
        // SIGINT is a "fast" shutdown (clients are disconnected, a checkpoint is written);
        // SIGQUIT an "immediate" one (children are told to quit, no checkpoint).
        .stop_signal(Signal::SIGINT)
        .teardown_signal(Signal::SIGQUIT);
        PostgresServer {
            process: ServerProcess::start(spec),
            version: installation.version.clone(),
        }
    }

    /// The URL of the `postgres` database as the superuser, for example
    /// `postgres://postgres@127.0.0.1:40123/postgres`.
    pub fn url(&self) -> String {
        format!("postgres://{SUPERUSER}@127.0.0.1:{}/postgres", self.process.port())
    }

    /// The same URL with the IPv6 loopback address, `postgres://postgres@[::1]:40123/postgres`;
    /// the server listens there when started with [`PostgresConfig::ipv6`].
    pub fn url_ipv6(&self) -> String {
        format!("postgres://{SUPERUSER}@[::1]:{}/postgres", self.process.port())
    }

    /// The loopback port, the same across restarts.
    pub fn port(&self) -> u16 {
        self.process.port()
    }

    /// The server's version, such as `15.20`.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The underlying process, for anything not forwarded here.
    pub fn process(&self) -> &ServerProcess {
        &self.process
    }

    /// Shuts the server down gracefully.
    pub fn stop(&self) {
        self.process.stop();
    }

    /// Kills the postmaster with SIGKILL, as a crash would; its children exit on their own.
    pub fn kill(&self) {
        self.process.kill();
    }

    /// Freezes the server and all its processes (SIGSTOP).
    pub fn pause(&self) {
        self.process.pause();
    }

    /// Thaws a paused server (SIGCONT).
    pub fn resume(&self) {
        self.process.resume();
    }

    /// Starts the server again on the same data directory and port, after crash recovery if it
    /// was killed.
    pub fn restart(&self) {
        self.process.restart();
    }
}

/// Ready when the `postmaster.pid` of this very process says so and the port answers.
fn postmaster_ready(probe: &Probe<'_>) -> bool {
    let Ok(text) = std::fs::read_to_string(probe.dir.join("data").join("postmaster.pid")) else {
        return false;
    };
    let lines: Vec<&str> = text.lines().collect();
    lines.first().map(|pid| pid.trim()) == Some(probe.pid.to_string().as_str())
        && lines.get(7).map(|status| status.trim()) == Some("ready")
        && tcp_accepts(probe.port)
}

fn installation() -> &'static Installation {
    static INSTALLATION: OnceLock<Installation> = OnceLock::new();
    INSTALLATION.get_or_init(|| {
        let bindir = find_bindir().unwrap_or_else(|| panic!("{NOT_FOUND}"));
        let version = server_version(&bindir);
        Installation { bindir, version }
    })
}

fn has_server(dir: &Path) -> bool {
    dir.join("postgres").is_file() && dir.join("initdb").is_file()
}

/// `pg_config --bindir`, else the newest `/usr/lib/postgresql/*/bin`.
fn find_bindir() -> Option<PathBuf> {
    let reported = Command::new("pg_config")
        .arg("--bindir")
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()));
    if let Some(dir) = reported.filter(|dir| has_server(dir)) {
        return Some(dir);
    }
    let versions = std::fs::read_dir("/usr/lib/postgresql").ok()?;
    versions
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|dir| has_server(&dir.join("bin")))
        .max_by_key(|dir| version_key(&dir.file_name().unwrap_or_default().to_string_lossy()))
        .map(|dir| dir.join("bin"))
}

/// Orders version strings numerically ("9.6" < "15" < "16").
fn version_key(text: &str) -> Vec<u64> {
    text.split(|c: char| !c.is_ascii_digit()).filter_map(|part| part.parse().ok()).collect()
}

/// The version printed by `postgres --version`, made safe for a file name.
fn server_version(bindir: &Path) -> String {
    let out = Command::new(bindir.join("postgres"))
        .arg("--version")
        .output()
        .unwrap_or_else(|err| panic!("cannot run {}/postgres: {err}", bindir.display()));
    let text = String::from_utf8_lossy(&out.stdout);
    // "postgres (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)"
    let version = text.split_whitespace().nth(2).unwrap_or("unknown");
    version.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '.').collect()
}

/// The user to run the server as: none unless this process is root.
fn server_user() -> Option<RunAs> {
    if !running_as_root() {
        return None;
    }
    Some(RunAs::lookup("postgres").unwrap_or_else(|| {
        panic!(
            "PostgreSQL refuses to run as root and there is no `postgres` system user to run it \
             as: install the postgresql package"
        )
    }))
}

/// The cached, initialised cluster for this version and server user, created on first use.
fn template(installation: &Installation, run_as: Option<RunAs>) -> PathBuf {
    static TEMPLATE: OnceLock<PathBuf> = OnceLock::new();
    TEMPLATE
        .get_or_init(|| {
            let uid = run_as.map_or_else(nix::unistd::geteuid, |user| user.uid);
            let base =
                format!("baton-postgres-{}-uid{uid}-{TEMPLATE_FORMAT}", installation.version);
            template::cached("PostgreSQL cluster", &base, "PG_VERSION", |staging| {
                initdb(installation, run_as, staging)
            })
        })
        .clone()
}

fn initdb(
    installation: &Installation,
    run_as: Option<RunAs>,
    staging: &Path,
) -> Result<(), String> {
    std::fs::create_dir(staging).map_err(|err| format!("{}: {err}", staging.display()))?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(staging, std::fs::Permissions::from_mode(0o700))
        .map_err(|err| format!("{}: {err}", staging.display()))?;
    let mut command = Command::new(installation.bindir.join("initdb"));
    command
        .arg("-D")
        .arg(staging)
        .args(["-U", SUPERUSER, "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"])
        .arg("--wal-segsize=1")
        .current_dir(staging);
    if let Some(user) = run_as {
        user.chown(staging).map_err(|err| format!("{}: {err}", staging.display()))?;
        use std::os::unix::process::CommandExt;
        command.uid(user.uid.as_raw()).gid(user.gid.as_raw());
    }
    let out = command.output().map_err(|err| format!("cannot run initdb: {err}"))?;
    if !out.status.success() {
        return Err(format!(
            "initdb failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::version_key;

    #[test]
    fn versions_order_numerically() {
        assert!(version_key("9.6") < version_key("15"));
        assert!(version_key("15") < version_key("16"));
    }
}
