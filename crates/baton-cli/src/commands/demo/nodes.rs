//! The demo's node processes: started from this binary, their event lines merged into one
//! stream.

use std::process::Stdio;

use anyhow::Context;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;
use tokio::time::Instant;

/// What a node reported.
#[derive(Debug)]
pub enum Event {
    /// It became the scheduler leader under this lease token.
    Leading(String),
    /// A handler's fenced write was accepted.
    Wrote { job: String, fire: String, attempt: String, token: String },
    /// A handler's write was rejected by the fence.
    Rejected { job: String, fire: String, token: String, fence: String },
}

impl Event {
    fn parse(line: &str) -> Option<Event> {
        let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        match words.as_slice() {
            [kind, token] if kind == "LEADING" => Some(Event::Leading(token.clone())),
            [kind, job, fire, attempt, token] if kind == "WROTE" => Some(Event::Wrote {
                job: job.clone(),
                fire: fire.clone(),
                attempt: attempt.clone(),
                token: token.clone(),
            }),
            [kind, job, fire, token, fence] if kind == "REJECTED" => Some(Event::Rejected {
                job: job.clone(),
                fire: fire.clone(),
                token: token.clone(),
                fence: fence.clone(),
            }),
            _ => None,
        }
    }
}

/// The running nodes.
pub struct Nodes {
    children: Vec<(String, Child)>,
    events: mpsc::UnboundedReceiver<(String, Event)>,
    rejected: usize,
}

impl Nodes {
    /// Starts one node process per name, all on `url`.
    pub async fn start(url: &str, names: &[&str]) -> anyhow::Result<Self> {
        let binary = std::env::current_exe().context("locating the baton binary")?;
        let (sender, events) = mpsc::unbounded_channel();
        let mut children = Vec::new();
        for name in names {
            let mut child = Command::new(&binary)
                .args(["demo", "--node", name, "--backend", url])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .kill_on_drop(true)
                .spawn()
                .with_context(|| format!("starting {name}"))?;
            let stdout = child.stdout.take().context("node output")?;
            let (sender, name_owned) = (sender.clone(), name.to_string());
            tokio::spawn(async move {
                let mut lines = BufReader::new(stdout).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    if let Some(event) = Event::parse(&line) {
                        let _ = sender.send((name_owned.clone(), event));
                    }
                }
            });
            children.push((name.to_string(), child));
        }
        Ok(Nodes { children, events, rejected: 0 })
    }

    /// The next event, or `None` once `until` has passed.
    pub async fn next_until(&mut self, until: Instant) -> Option<(String, Event)> {
        let next = tokio::time::timeout_at(until, self.events.recv()).await.ok().flatten();
        if let Some((_, Event::Rejected { .. })) = &next {
            self.rejected += 1;
        }
        next
    }

    /// Kills a node with SIGKILL and waits for it to be gone.
    pub async fn kill(&mut self, name: &str) {
        if let Some(index) = self.children.iter().position(|(n, _)| n == name) {
            let (_, mut child) = self.children.remove(index);
            let _ = child.kill().await;
        }
    }

    /// Stops every node gracefully (closing its input) and waits for each; answers how many
    /// writes the fence rejected over the run.
    pub async fn stop(mut self) -> usize {
        for (_, child) in &mut self.children {
            drop(child.stdin.take());
        }
        for (name, child) in &mut self.children {
            if let Err(err) = child.wait().await {
                eprintln!("baton: waiting for {name}: {err}");
            }
        }
        while let Ok((_, event)) = self.events.try_recv() {
            if matches!(event, Event::Rejected { .. }) {
                self.rejected += 1;
            }
        }
        self.rejected
    }
}
