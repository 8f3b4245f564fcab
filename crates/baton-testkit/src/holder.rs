//! Drives `baton-test-holder` processes from a test: start, read their events, kill, pause.

use std::process::Stdio;
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;

/// One event a holder printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The first word: ACQUIRED, WROTE, REJECTED, LOST, PROBE, ERROR.
    pub kind: String,
    /// The rest of the line.
    pub detail: String,
    /// When the test read it.
    pub at: std::time::Instant,
}

impl Event {
    /// The last word of the line parsed as a token, if it is one.
    pub fn token(&self) -> Option<u64> {
        self.detail.split_whitespace().last()?.parse().ok()
    }
}

/// A running holder process; killed when dropped.
pub struct HolderProcess {
    child: Child,
    events: mpsc::UnboundedReceiver<Event>,
    /// The writer name it appends to the ledger under.
    pub writer: String,
}

impl HolderProcess {
    /// Starts `binary` (the path of `baton-test-holder`) for `lease` on `url`.
    pub fn spawn(binary: &str, url: &str, lease: &str, ttl: Duration, writer: &str) -> Self {
        let mut child = Command::new(binary)
            .args([url, lease, &ttl.as_millis().to_string(), writer])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("starting baton-test-holder");
        let stdout = child.stdout.take().expect("piped stdout");
        let (sender, events) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let (kind, detail) = line.split_once(' ').unwrap_or((&line, ""));
                let event = Event {
                    kind: kind.to_string(),
                    detail: detail.to_string(),
                    at: std::time::Instant::now(),
                };
                if sender.send(event).is_err() {
                    break;
                }
            }
        });
        HolderProcess { child, events, writer: writer.to_string() }
    }

    /// Waits for the next event of `kind`, returning it and every event skipped on the way.
    /// Panics with the events seen if none arrives within `within`.
    pub async fn expect(&mut self, kind: &str, within: Duration) -> (Event, Vec<Event>) {
        let mut skipped = Vec::new();
        let deadline = tokio::time::Instant::now() + within;
        loop {
            match tokio::time::timeout_at(deadline, self.events.recv()).await {
                Ok(Some(event)) if event.kind == kind => return (event, skipped),
                Ok(Some(event)) => skipped.push(event),
                Ok(None) => panic!("{} exited before {kind}; saw {skipped:?}", self.writer),
                Err(_) => {
                    panic!("{} printed no {kind} within {within:?}; saw {skipped:?}", self.writer)
                }
            }
        }
    }

    /// The next event, whatever it is.
    pub async fn next(&mut self, within: Duration) -> Event {
        match tokio::time::timeout(within, self.events.recv()).await {
            Ok(Some(event)) => event,
            other => panic!("{}: no event within {within:?} ({other:?})", self.writer),
        }
    }

    /// Drops every event already printed.
    pub fn drain(&mut self) -> Vec<Event> {
        let mut drained = Vec::new();
        while let Ok(event) = self.events.try_recv() {
            drained.push(event);
        }
        drained
    }

    fn signal(&self, signal: Signal) {
        let pid = self.child.id().expect("holder is running");
        kill(Pid::from_raw(pid as i32), signal).expect("signalling the holder");
    }

    /// SIGKILL.
    pub async fn kill9(&mut self) {
        self.signal(Signal::SIGKILL);
        let _ = self.child.wait().await;
    }

    /// Asks the holder to SIGSTOP itself right after its next renewal (see the binary's docs)
    /// and waits until it did: it stops running but keeps its connections.
    pub async fn pause(&mut self, within: Duration) {
        use tokio::io::AsyncWriteExt;
        let stdin = self.child.stdin.as_mut().expect("piped stdin");
        stdin.write_all(b"STOP\n").await.expect("writing to the holder");
        stdin.flush().await.expect("writing to the holder");
        self.expect("STOPPING", within).await;
        let pid = Pid::from_raw(self.child.id().expect("running") as i32);
        let stat = format!("/proc/{pid}/stat");
        let deadline = tokio::time::Instant::now() + within;
        while !std::fs::read_to_string(&stat)
            .is_ok_and(|s| s.split_whitespace().nth(2) == Some("T"))
        {
            assert!(tokio::time::Instant::now() < deadline, "{} did not stop", self.writer);
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// SIGCONT.
    pub fn resume(&self) {
        self.signal(Signal::SIGCONT);
    }
}
