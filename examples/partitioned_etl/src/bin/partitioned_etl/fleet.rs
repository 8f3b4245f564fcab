//! The node processes of a run besides this one: this very program as `partitioned_etl node`,
//! each told to leave by closing its standard input, and killed if this process fails first.

use std::path::Path;
use std::process::Stdio;

use anyhow::Context;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::Work;

/// One node process.
struct NodeProcess {
    index: u32,
    child: Child,
    killed: bool,
}

/// The node processes, numbered from 1 (this process is node 0).
pub(crate) struct Fleet {
    nodes: Vec<NodeProcess>,
}

impl Fleet {
    /// Starts nodes 1 to `count` over `backend` and waits until each is registered.
    pub(crate) async fn start(
        count: u32,
        backend: &str,
        dir: &Path,
        work: &Work,
    ) -> anyhow::Result<Fleet> {
        let program = std::env::current_exe().context("finding this program")?;
        let mut nodes = Vec::new();
        for index in 1..=count {
            let mut child = Command::new(&program)
                .args(["node", "--backend", backend, "--index", &index.to_string()])
                .arg("--dir")
                .arg(dir)
                .args(work.to_args())
                .kill_on_drop(true)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .with_context(|| format!("starting {}", program.display()))?;
            let stdout = child.stdout.take().context("no stdout pipe")?;
            let ready = BufReader::new(stdout).lines().next_line().await?;
            anyhow::ensure!(ready.as_deref() == Some("ready"), "node {index} did not start");
            nodes.push(NodeProcess { index, child, killed: false });
        }
        Ok(Fleet { nodes })
    }

    /// The numbers of the nodes still running.
    pub(crate) fn running(&self) -> impl Iterator<Item = u32> + '_ {
        self.nodes.iter().filter(|node| !node.killed).map(|node| node.index)
    }

    /// Kills node `index` with SIGKILL, as a crash would.
    pub(crate) fn kill(&mut self, index: u32) -> anyhow::Result<()> {
        let node = self.nodes.iter_mut().find(|node| node.index == index);
        let node = node.with_context(|| format!("there is no node process {index}"))?;
        node.child.start_kill().with_context(|| format!("killing node {index}"))?;
        node.killed = true;
        Ok(())
    }

    /// Tells every node still running to leave, and waits until all have exited.
    pub(crate) async fn stop(mut self) -> anyhow::Result<()> {
        for node in &mut self.nodes {
            node.child.stdin = None;
        }
        for node in &mut self.nodes {
            let status = node.child.wait().await?;
            anyhow::ensure!(
                node.killed || status.success(),
                "node {} exited with {status}",
                node.index
            );
        }
        Ok(())
    }
}
