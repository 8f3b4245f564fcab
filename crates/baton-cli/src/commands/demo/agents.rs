//! The demo's agent processes: `baton agent` started from this binary, one config file and one
//! log file each in the demo's directory; killed, paused, resumed and stopped by name.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::Context;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use tokio::process::{Child, Command};

use super::config::{Stores, agent_config};

/// One agent process.
pub struct Agent {
    /// Its node id.
    pub name: String,
    /// The port of its API and dashboard.
    pub port: u16,
    child: Child,
}

impl Agent {
    fn pid(&self) -> Option<Pid> {
        self.child.id().map(|id| Pid::from_raw(id as i32))
    }

    /// The process group of the command this agent runs for execution `id`, if it runs: the
    /// agent's child that leads it (the command's supervisor on Linux) has the execution's
    /// variables.
    pub fn command_group(&self, id: i64) -> Option<Pid> {
        let pid = self.pid()?;
        let marker = format!("BATON_EXECUTION_ID={id}");
        std::fs::read_dir("/proc")
            .ok()?
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
            .filter(|child| parent_of(*child) == Some(pid.as_raw()))
            .find(|child| {
                let environ = std::fs::read(format!("/proc/{child}/environ")).unwrap_or_default();
                environ.split(|byte| *byte == 0).any(|entry| entry == marker.as_bytes())
            })
            .map(Pid::from_raw)
    }

    /// Sends `signal` to the agent.
    pub fn signal(&self, signal: Signal) {
        if let Some(pid) = self.pid() {
            let _ = kill(pid, signal);
        }
    }
}

/// The parent process id of `pid`, from `/proc/PID/stat`.
fn parent_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold spaces; the fields after it are plain.
    stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()
}

/// The running agents.
pub struct Agents {
    dir: PathBuf,
    /// The agents still running, in start order.
    pub running: Vec<Agent>,
}

impl Agents {
    /// Starts one agent per name on `stores`, each on a free loopback port, with its config
    /// and log in `dir`.
    pub async fn start(dir: &Path, stores: &Stores, names: &[&str]) -> anyhow::Result<Agents> {
        let binary = std::env::current_exe().context("locating the baton binary")?;
        let mut running = Vec::new();
        for name in names {
            let port = free_port()?;
            let config = dir.join(format!("{name}.toml"));
            std::fs::write(&config, agent_config(stores, name, port)?)?;
            let log = std::fs::File::create(dir.join(format!("{name}.log")))?;
            let mut command = Command::new(&binary);
            command.arg("agent").arg("--config").arg(&config);
            for variable in
                ["BATON_BACKEND", "BATON_LISTEN", "BATON_ADMIN_TOKEN", "BATON_READ_TOKEN"]
            {
                command.env_remove(variable);
            }
            let child = command
                .env("BATON_LOG", "info")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(log)
                .kill_on_drop(true)
                .spawn()
                .with_context(|| format!("starting agent {name}"))?;
            running.push(Agent { name: name.to_string(), port, child });
        }
        Ok(Agents { dir: dir.to_owned(), running })
    }

    /// The agent named `name`, if it runs.
    pub fn get(&self, name: &str) -> Option<&Agent> {
        self.running.iter().find(|agent| agent.name == name)
    }

    /// Kills an agent with SIGKILL and waits for it to be gone.
    pub async fn kill(&mut self, name: &str) {
        if let Some(index) = self.running.iter().position(|agent| agent.name == name) {
            let mut agent = self.running.remove(index);
            let _ = agent.child.kill().await;
        }
    }

    /// Stops every agent with SIGTERM and waits for each (killing one that takes more than 15
    /// seconds); then kills any command of the demo still running.
    pub async fn stop(mut self) {
        for agent in &self.running {
            agent.signal(Signal::SIGTERM);
        }
        for agent in &mut self.running {
            let waited = tokio::time::timeout(Duration::from_secs(15), agent.child.wait()).await;
            if waited.is_err() {
                eprintln!("baton: agent {} did not stop within 15 s: killed", agent.name);
                let _ = agent.child.kill().await;
            }
        }
        self.kill_leftovers();
    }

    /// Kills the processes whose command line names the demo's directory: commands left
    /// running by an agent that was killed.
    fn kill_leftovers(&self) {
        let marker = self.dir.display().to_string();
        let Ok(entries) = std::fs::read_dir("/proc") else { return };
        for id in entries.filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
        {
            let cmdline = std::fs::read(format!("/proc/{id}/cmdline")).unwrap_or_default();
            if String::from_utf8_lossy(&cmdline).contains(&marker)
                && id != std::process::id() as i32
            {
                let _ = kill(Pid::from_raw(id), Signal::SIGKILL);
            }
        }
    }
}

/// A loopback port free right now.
fn free_port() -> anyhow::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}
