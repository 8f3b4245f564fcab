//! A throwaway MariaDB server built from the machine's binaries (`mariadbd`,
//! `mariadb-install-db`).
//!
//! The system tables are created once per machine and version with `mariadb-install-db` into a
//! cached template directory and copied for each server. Each server listens on a free loopback
//! port with its socket and pid file in its own directory, never touching the machine's own
//! server. `root` has no password (over loopback only) and the grant tables are in force.
//! mariadbd aborts when started as root unless told `--user=root`, which it is when the tests
//! run as root.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::mariadb_config::MariadbConfig;
use super::process::ServerProcess;
use super::spec::{Probe, ServerSpec, running_as_root, tcp_accepts};
use super::template::{self, copy_tree};

const NOT_FOUND: &str = "MariaDB server binaries (mariadbd, mariadb-install-db) not found: \
                         install the mariadb-server package (scripts/test does this when run \
                         as root)";
/// Bumped whenever the template's options change, so stale templates are not reused.
const TEMPLATE_FORMAT: &str = "v1";
/// Where the server binaries live on Debian.
const SBIN: &str = "/usr/sbin";

/// A MariaDB server on a free loopback port, in its own temporary directory, with the database
/// [`DATABASE`](Self::DATABASE) and a `root` account without a password. Dropping it kills the server and
/// removes the directory.
pub struct MariadbServer {
    process: ServerProcess,
    version: String,
}

/// Where the binaries are and which version they are, found once per process.
struct Installation {
    server: PathBuf,
    install_db: PathBuf,
    version: String,
}

impl MariadbServer {
    /// The database created at every start and named in [`url`](Self::url).
    pub const DATABASE: &'static str = "baton";

    /// Starts a server and waits until it accepts connections. Panics if the binaries are
    /// missing or the server does not start (with the tail of its log).
    pub fn start() -> MariadbServer {
        MariadbServer::start_with(MariadbConfig::default())
    }

    /// Starts a server configured as `config` says; see [`start`](Self::start).
    pub fn start_with(config: MariadbConfig) -> MariadbServer {
        let files = config.clone();
        let installation = installation();
        let template = template(installation);
        let server = installation.server.clone();
        let spec = ServerSpec::new("mariadb", move |dir, port| {
            let mut command = Command::new(&server);
            command
                .arg("--no-defaults")
                .arg(format!("--datadir={}", dir.join("data").display()))
                .arg(format!("--socket={}", dir.join("mariadbd.sock").display()))
                .arg(format!("--pid-file={}", dir.join("mariadbd.pid").display()))
                .arg(format!("--init-file={}", dir.join("init.sql").display()))
                // A temporary directory of its own: a server deletes every `#sql*` file in its
                // temporary directory when it starts, including another server's live ones.
                .arg(format!("--tmpdir={}", dir.join("tmp").display()))
                .arg(format!("--port={port}"))
                .args(["--bind-address=127.0.0.1", "--skip-name-resolve"])
                // Safe here: the tests kill the server process, never the machine, and the
                // operating system keeps what was written before a kill.
                .args(["--innodb-flush-log-at-trx-commit=2", "--innodb-doublewrite=0"])
                .args([
                    "--innodb-log-file-size=4M",
                    "--innodb-data-file-path=ibdata1:4M:autoextend",
                ])
                .args(["--innodb-buffer-pool-size=32M", "--max-connections=300"]);
            if running_as_root() {
                command.arg("--user=root");
            }
            config.arguments(&mut command, dir);
            command
        })
        .prepare(move |dir| {
            copy_tree(&template, &dir.join("data"), None)?;
            std::fs::create_dir_all(dir.join("tmp"))?;
            std::fs::write(dir.join("init.sql"), files.init_sql(MariadbServer::DATABASE))?;
            files.tls.as_ref().map_or(Ok(()), |tls| tls.write_files(dir, None))
        })
        .probe(ready);
        MariadbServer { process: ServerProcess::start(spec), version: installation.version.clone() }
    }

    /// The URL of the [`DATABASE`](Self::DATABASE) database as `root`, for example
    /// `mysql://root@127.0.0.1:40123/baton`.
    pub fn url(&self) -> String {
        format!("mysql://root@127.0.0.1:{}/{}", self.process.port(), Self::DATABASE)
    }

    /// The loopback port, the same across restarts.
    pub fn port(&self) -> u16 {
        self.process.port()
    }

    /// The server's version, such as `10.11.19`.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The server process: stop, kill, pause, resume or restart it there. Restarted, it
    /// recovers its data directory, as after a crash when it was killed.
    pub fn process(&self) -> &ServerProcess {
        &self.process
    }
}

/// Ready when the pid file names this very process and the port answers: mariadbd listens
/// only once it has recovered and run its init file.
fn ready(probe: &Probe<'_>) -> bool {
    let Ok(text) = std::fs::read_to_string(probe.dir.join("mariadbd.pid")) else {
        return false;
    };
    text.trim() == probe.pid.to_string() && tcp_accepts(probe.port)
}

fn installation() -> &'static Installation {
    static INSTALLATION: OnceLock<Installation> = OnceLock::new();
    INSTALLATION.get_or_init(|| {
        let find = |name: &str| {
            let path = std::env::var_os("PATH").unwrap_or_default();
            std::env::split_paths(&path)
                .chain([PathBuf::from(SBIN)])
                .map(|dir| dir.join(name))
                .find(|candidate| candidate.is_file())
                .unwrap_or_else(|| panic!("{NOT_FOUND}"))
        };
        let server = find("mariadbd");
        let install_db = find("mariadb-install-db");
        let version = server_version(&server);
        Installation { server, install_db, version }
    })
}

/// The version printed by `mariadbd --version`, made safe for a file name.
fn server_version(server: &Path) -> String {
    let out = Command::new(server)
        .arg("--version")
        .output()
        .unwrap_or_else(|err| panic!("cannot run {}: {err}", server.display()));
    // "mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)"
    let text = String::from_utf8_lossy(&out.stdout);
    let words: Vec<&str> = text.split_whitespace().collect();
    let version = words.iter().position(|word| *word == "Ver").and_then(|at| words.get(at + 1));
    let version = version.and_then(|full| full.split('-').next()).unwrap_or("unknown");
    version.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '.').collect()
}

/// The cached data directory with the system tables, created on first use.
fn template(installation: &Installation) -> PathBuf {
    static TEMPLATE: OnceLock<PathBuf> = OnceLock::new();
    TEMPLATE
        .get_or_init(|| {
            let uid = nix::unistd::geteuid();
            let base = format!("baton-mariadb-{}-uid{uid}-{TEMPLATE_FORMAT}", installation.version);
            template::cached("MariaDB data directory", &base, "mysql/db.frm", |staging| {
                install_db(installation, staging)
            })
        })
        .clone()
}

fn install_db(installation: &Installation, staging: &Path) -> Result<(), String> {
    // The bootstrap server clears `#sql*` files from its temporary directory at start, so it
    // gets one of its own rather than the shared one running servers may use.
    let tmpdir = tempfile::tempdir().map_err(|err| format!("cannot create a directory: {err}"))?;
    let mut command = Command::new(&installation.install_db);
    command
        .arg("--no-defaults")
        .arg(format!("--datadir={}", staging.display()))
        .arg(format!("--tmpdir={}", tmpdir.path().display()))
        .args(["--auth-root-authentication-method=normal", "--skip-test-db"])
        .args(["--innodb-log-file-size=4M", "--innodb-data-file-path=ibdata1:4M:autoextend"])
        .arg("--skip-name-resolve");
    if running_as_root() {
        command.arg("--user=root");
    }
    let out = command.output().map_err(|err| format!("cannot run mariadb-install-db: {err}"))?;
    if !out.status.success() {
        return Err(format!(
            "mariadb-install-db failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}
