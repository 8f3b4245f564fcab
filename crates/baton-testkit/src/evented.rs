//! A child process that reports one event per line on stdout, as the testkit's test binaries
//! (`baton-test-holder`, `baton-test-node`) do: start it, wait for its events, kill it with
//! SIGKILL, or pause it with its own SIGSTOP and resume it. Its lines and the signals sent to it
//! are recorded in the [`History`] of the scope it was started in.

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStderr, Command};
use tokio::sync::mpsc;

use crate::history::{self, History};

/// One event a process printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The first word (ACQUIRED, WROTE, STARTED, …).
    pub kind: String,
    /// The rest of the line.
    pub detail: String,
    /// When the test read it.
    pub at: Instant,
}

impl Event {
    /// The last word of the line parsed as a token, if it is one.
    pub fn token(&self) -> Option<u64> {
        history::trailing_token(&self.detail)
    }
}

/// How many of a process's last stderr lines a failure message shows.
const STDERR_TAIL: usize = 20;

/// A running child process and the events it printed; killed when dropped.
pub struct EventedProcess {
    child: Child,
    events: mpsc::UnboundedReceiver<Event>,
    log: Arc<Mutex<Vec<Event>>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    name: String,
}

impl EventedProcess {
    /// Starts `command` with piped stdin, stdout and stderr; `name` identifies it in messages.
    /// Its stderr lines are passed on to the test's, and the last ones are kept for the
    /// message of a failed wait.
    pub fn spawn(mut command: Command, name: &str) -> Self {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|err| panic!("starting {name}: {err}"));
        let stderr = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_TAIL)));
        tokio::spawn(keep_stderr_tail(
            child.stderr.take().expect("piped stderr"),
            name.to_string(),
            stderr.clone(),
        ));
        let stdout = child.stdout.take().expect("piped stdout");
        let (sender, events) = mpsc::unbounded_channel();
        let log = Arc::new(Mutex::new(Vec::new()));
        let record = log.clone();
        let history = History::current();
        let process = name.to_string();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let (kind, detail) = line.split_once(' ').unwrap_or((&line, ""));
                let event = Event {
                    kind: kind.to_string(),
                    detail: detail.to_string(),
                    at: Instant::now(),
                };
                if let Some(history) = &history {
                    history.push(&process, &event.kind, &event.detail, event.at);
                }
                record.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(event.clone());
                if sender.send(event).is_err() {
                    break;
                }
            }
        });
        EventedProcess { child, events, log, stderr, name: name.to_string() }
    }

    /// The last lines the process wrote to stderr, for failure messages.
    fn stderr_tail(&self) -> String {
        let lines = self.stderr.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        match lines.is_empty() {
            true => "its stderr is empty".to_string(),
            false => format!("its stderr ends:\n{}", Vec::from(lines.clone()).join("\n")),
        }
    }

    /// The name given at spawn.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Every event printed so far, whether or not it was waited for.
    pub fn history(&self) -> Vec<Event> {
        self.log.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
    }

    /// Waits for the next event of `kind`, returning it and every event skipped on the way.
    /// Panics with the events seen if none arrives within `within`.
    pub async fn expect(&mut self, kind: &str, within: Duration) -> (Event, Vec<Event>) {
        self.expect_where(kind, within, |_| true).await
    }

    /// Waits for the next event of `kind` that satisfies `wanted`, returning it and every
    /// event skipped on the way. Panics with the events seen if none arrives within `within`.
    pub async fn expect_where(
        &mut self,
        kind: &str,
        within: Duration,
        wanted: impl Fn(&Event) -> bool,
    ) -> (Event, Vec<Event>) {
        let mut skipped = Vec::new();
        let deadline = tokio::time::Instant::now() + within;
        loop {
            match tokio::time::timeout_at(deadline, self.events.recv()).await {
                Ok(Some(event)) if event.kind == kind && wanted(&event) => {
                    return (event, skipped);
                }
                Ok(Some(event)) => skipped.push(event),
                Ok(None) => panic!(
                    "{} exited before {kind}; saw {skipped:?}; {}",
                    self.name,
                    self.stderr_tail()
                ),
                Err(_) => panic!(
                    "{} printed no {kind} within {within:?}; saw {skipped:?}; {}",
                    self.name,
                    self.stderr_tail()
                ),
            }
        }
    }

    /// The next event, whatever it is.
    pub async fn next(&mut self, within: Duration) -> Event {
        match tokio::time::timeout(within, self.events.recv()).await {
            Ok(Some(event)) => event,
            other => {
                panic!(
                    "{}: no event within {within:?} ({other:?}); {}",
                    self.name,
                    self.stderr_tail()
                )
            }
        }
    }

    /// Drops every event already printed from the queue of events to wait for.
    pub fn drain(&mut self) -> Vec<Event> {
        let mut drained = Vec::new();
        while let Ok(event) = self.events.try_recv() {
            drained.push(event);
        }
        drained
    }

    fn pid(&self) -> Pid {
        let pid = self.child.id().unwrap_or_else(|| panic!("{} is not running", self.name));
        Pid::from_raw(i32::try_from(pid).expect("a pid fits an i32"))
    }

    fn signal(&self, signal: Signal) {
        history::nemesis(signal.as_str(), &self.name);
        kill(self.pid(), signal).unwrap_or_else(|err| panic!("signalling {}: {err}", self.name));
    }

    /// Writes one line to the process's stdin.
    pub async fn send_line(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().expect("piped stdin");
        let written = async {
            stdin.write_all(line.as_bytes()).await?;
            stdin.write_all(b"\n").await?;
            stdin.flush().await
        };
        if let Err(err) = written.await {
            let status = self.child.try_wait();
            panic!(
                "writing to {}: {err}; exit status {status:?}; it printed {:#?}",
                self.name,
                self.history()
            );
        }
    }

    /// SIGKILL, then waits for the process to be gone.
    pub async fn kill9(&mut self) {
        self.signal(Signal::SIGKILL);
        let _ = self.child.wait().await;
    }

    /// Sends `STOP` on stdin, which the testkit's binaries answer by printing `STOPPING` and
    /// stopping themselves with SIGSTOP at a clean point (see each binary's docs), and waits
    /// until the process is stopped: it no longer runs but keeps its connections.
    pub async fn pause(&mut self, within: Duration) -> Event {
        self.pause_on("STOP", within).await
    }

    /// Like [`EventedProcess::pause`], with another command that makes the process stop
    /// itself; returns the `STOPPING` event.
    pub async fn pause_on(&mut self, command: &str, within: Duration) -> Event {
        self.send_line(command).await;
        let (stopping, _) = self.expect("STOPPING", within).await;
        self.wait_stopped(within).await;
        stopping
    }

    /// SIGSTOP sent from outside, at whatever instant the process is at (unlike
    /// [`EventedProcess::pause`], whose stop the process places itself); waits until the process
    /// is stopped.
    pub async fn stop_now(&mut self, within: Duration) {
        self.signal(Signal::SIGSTOP);
        self.wait_stopped(within).await;
    }

    /// Waits until the process is in the stopped state.
    async fn wait_stopped(&self, within: Duration) {
        let stat = format!("/proc/{}/stat", self.pid());
        let deadline = tokio::time::Instant::now() + within;
        while !std::fs::read_to_string(&stat)
            .is_ok_and(|s| s.split_whitespace().nth(2) == Some("T"))
        {
            assert!(tokio::time::Instant::now() < deadline, "{} did not stop", self.name);
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Waits until every one of `wanted` matched an event, in any order; returns the events
    /// read on the way. Panics with them if that takes longer than `within`.
    pub async fn expect_all(
        &mut self,
        wanted: &[&(dyn Fn(&Event) -> bool + Sync)],
        within: Duration,
    ) -> Vec<Event> {
        let mut seen = Vec::new();
        let mut found = vec![false; wanted.len()];
        let deadline = tokio::time::Instant::now() + within;
        while found.contains(&false) {
            match tokio::time::timeout_at(deadline, self.events.recv()).await {
                Ok(Some(event)) => {
                    for (hit, wanted) in found.iter_mut().zip(wanted) {
                        *hit |= wanted(&event);
                    }
                    seen.push(event);
                }
                Ok(None) => panic!("{} exited; saw {seen:?}", self.name),
                Err(_) => panic!("{}: not every event within {within:?}; saw {seen:?}", self.name),
            }
        }
        seen
    }

    /// SIGCONT.
    pub fn resume(&self) {
        self.signal(Signal::SIGCONT);
    }

    /// Waits for the process to exit on its own, up to `within`; answers whether it exited
    /// successfully.
    pub async fn wait_exit(&mut self, within: Duration) -> bool {
        match tokio::time::timeout(within, self.child.wait()).await {
            Ok(Ok(status)) => status.success(),
            Ok(Err(err)) => panic!("waiting for {}: {err}", self.name),
            Err(_) => panic!("{} did not exit within {within:?}", self.name),
        }
    }
}

/// Passes each stderr line of process `name` on to the test's stderr, keeping the last
/// [`STDERR_TAIL`] in `tail`.
async fn keep_stderr_tail(stderr: ChildStderr, name: String, tail: Arc<Mutex<VecDeque<String>>>) {
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        eprintln!("[{name}] {line}");
        let mut tail = tail.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if tail.len() == STDERR_TAIL {
            tail.pop_front();
        }
        tail.push_back(line);
    }
}
