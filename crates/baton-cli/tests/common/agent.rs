//! Running `baton agent` in tests: a temporary directory holding config files and a SQLite
//! store, agents as child processes that are killed if a test ends early, and polling with a
//! deadline.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

use super::BATON;

/// A temporary directory with config files and a SQLite store; removed on drop.
pub struct Site {
    dir: tempfile::TempDir,
    /// The store's URL.
    pub url: String,
}

impl Site {
    /// An empty directory.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("baton.db").display());
        Site { dir, url }
    }

    /// A path inside the directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes a file into the directory.
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    /// A `baton` command run from the directory, without `BATON_*` variables of the caller.
    pub fn baton(&self, args: &[&str]) -> Command {
        let mut command = Command::new(BATON);
        command.current_dir(self.dir.path()).args(args);
        for name in [
            "BATON_BACKEND",
            "BATON_LEASE_BACKEND",
            "BATON_LISTEN",
            "BATON_ADMIN_TOKEN",
            "BATON_READ_TOKEN",
            "BATON_LOG",
            "BATON_AGENT",
            "BATON_OUTPUT",
        ] {
            command.env_remove(name);
        }
        command
    }

    /// Runs `baton agent --config FILE --check` from the directory.
    pub fn check(&self, file: &str) -> Output {
        self.baton(&["agent", "--config", file, "--check"]).output().unwrap()
    }

    /// Starts `baton agent --config FILE`, logging at info into `FILE.log`.
    pub fn start(&self, file: &str) -> Agent {
        self.start_with(file, &[])
    }

    /// Starts `baton agent --config FILE` with the variables `vars` set, logging at info into
    /// `FILE.log`.
    pub fn start_with(&self, file: &str, vars: &[(&str, &str)]) -> Agent {
        let log = self.path(&format!("{file}.log"));
        let child = self
            .baton(&["agent", "--config", file])
            .envs(vars.iter().copied())
            .env("BATON_LOG", "info")
            .env("BATON_LISTEN", "127.0.0.1:0")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        Agent { child, log }
    }

    /// The store, opened in this process.
    pub async fn backend(&self) -> baton::Backend {
        let backend = baton::connect(&self.url).await.unwrap();
        backend.migrate().await.unwrap();
        backend
    }
}

/// A running agent; killed with SIGKILL if still running when dropped, and its log printed if
/// the test is failing.
pub struct Agent {
    child: Child,
    log: PathBuf,
}

impl Agent {
    /// The agent's process id.
    pub fn pid(&self) -> nix::unistd::Pid {
        nix::unistd::Pid::from_raw(self.child.id() as i32)
    }

    /// Kills the agent with SIGKILL and collects it.
    pub fn kill(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// Sends SIGTERM.
    pub fn terminate(&self) {
        nix::sys::signal::kill(self.pid(), nix::sys::signal::Signal::SIGTERM).unwrap();
    }

    /// Waits for the agent to exit, failing the test after `limit`.
    pub async fn exits_within(&mut self, limit: Duration) -> ExitStatus {
        let child = &mut self.child;
        eventually("the agent to exit", limit, async || child.try_wait().unwrap()).await
    }

    /// The address the agent's HTTP server listens on, read from its start line.
    pub async fn http_address(&self) -> String {
        eventually("the agent to start its HTTP server", Duration::from_secs(20), async || {
            let log = self.log();
            let start = log.find(" http=")? + " http=".len();
            let rest = &log[start..];
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            Some(rest[..end].to_owned())
        })
        .await
    }

    /// The agent's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        if std::thread::panicking() {
            eprintln!("--- log of {} ---\n{}", self.log.display(), self.log());
        }
    }
}

/// Polls `probe` every 20 ms until it answers `Some`, failing the test, naming `what`, after
/// `within`.
pub async fn eventually<T>(
    what: &str,
    within: Duration,
    mut probe: impl AsyncFnMut() -> Option<T>,
) -> T {
    let deadline = Instant::now() + within;
    loop {
        if let Some(value) = probe().await {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out after {within:?} waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Whether a process with this id runs: it exists and is not a zombie (a process that ended
/// and has not been collected by its parent yet, such as a killed one whose parent died).
pub fn process_runs(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the program's name, which is in parentheses and may hold anything.
        Ok(stat) => {
            let state =
                stat.rsplit_once(')').and_then(|(_, rest)| rest.trim_start().chars().next());
            !matches!(state, None | Some('Z' | 'X'))
        }
        // Gone, or no /proc to tell.
        Err(_) => nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok(),
    }
}

/// The workspace's directory.
pub fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Sends one HTTP/1.1 request to `address` and answers the status code and the body.
pub fn http(address: &str, method: &str, path: &str, token: Option<&str>) -> (u16, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    let auth = token.map(|t| format!("Authorization: Bearer {t}\r\n")).unwrap_or_default();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\n{auth}Content-Length: 0\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer.split(' ').nth(1).and_then(|code| code.parse().ok()).unwrap_or(0);
    let body = answer.split_once("\r\n\r\n").map(|(_, body)| body.to_owned()).unwrap_or_default();
    (status, body)
}
