//! A late write meeting the fence: a node is paused (SIGSTOP) with the command of a `report`
//! execution it runs; the execution is abandoned and retried on another node under a greater
//! token; then the paused command resumes and writes with its old token, and the fence refuses
//! it.
//!
//! A process paused while it holds the SQLite file's write lock (or baton's turn to take it)
//! holds up every writer until it resumes: the demo checks that both are free once the node is
//! paused, and otherwise resumes it at once and tries again a moment later, without counting
//! that as one of its tries.

use std::path::Path;
use std::time::{Duration, Instant};

use baton::Backend;
use baton::core::job::ExecutionListParams;
use baton::core::{Execution, ExecutionStatus};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use super::agents::Agents;
use super::watch::Watch;

/// How long the demo waits for each step before it gives the step up.
const PATIENCE: Duration = Duration::from_secs(20);
/// How long a retry of the paused fire may take before the demo tries another.
const RETRY_PATIENCE: Duration = Duration::from_secs(8);
/// How long the lock check waits for a writer that is only busy, not paused.
const LOCK_WAIT: Duration = Duration::from_millis(500);
/// How many times the demo pauses a node at most.
const TRIES: usize = 5;
/// How many times the demo checks the write lock at most, for all its tries together.
const LOCK_CHECKS: usize = 30;

/// Pauses a node and the command of a `report` execution it runs (its whole process group)
/// until the fire is written by its retry elsewhere, then resumes the command, so that its late
/// write is refused, and the node.
pub async fn stale_write(
    agents: &Agents,
    backend: &Backend,
    ledger: &Path,
    watch: &mut Watch,
) -> anyhow::Result<()> {
    let mut tries = 0;
    for _ in 0..LOCK_CHECKS {
        if tries == TRIES {
            break;
        }
        let Some((execution, name, group)) = running_report(agents, backend, watch).await? else {
            break;
        };
        let Some(agent) = agents.get(&name) else { break };
        let _ = killpg(group, Signal::SIGSTOP);
        agent.signal(Signal::SIGSTOP);
        if !baton::sqlite::write_lock_free(ledger, LOCK_WAIT).await? {
            agent.signal(Signal::SIGCONT);
            let _ = killpg(group, Signal::SIGCONT);
            tokio::time::sleep(Duration::from_millis(300)).await;
            continue;
        }
        tries += 1;
        let token = execution.token.map(|t| t.to_string()).unwrap_or_default();
        println!(
            "{}  ** paused {name} (SIGSTOP) with the command of report {} (token {token}) **",
            watch.at(),
            execution.scheduled_at
        );
        let retried_in_time =
            wait(watch, RETRY_PATIENCE, |_| async { retried(backend, &execution).await }).await?;
        if retried_in_time {
            let _ = killpg(group, Signal::SIGCONT);
            println!(
                "{}  ** resumed the paused command: it writes late, with token {token} **",
                watch.at()
            );
            let seen = watch.refusals_seen();
            wait(watch, PATIENCE, |refused| async move { Ok(refused > seen) }).await?;
        } else {
            let _ = killpg(group, Signal::SIGCONT);
            println!("{}  the fire was not retried in time: trying another", watch.at());
        }
        agent.signal(Signal::SIGCONT);
        println!(
            "{}  ** resumed {name}: it finds its work taken over and carries on **",
            watch.at()
        );
        if retried_in_time {
            return Ok(());
        }
    }
    println!("{}  no paused report was retried: the late write is left out", watch.at());
    Ok(())
}

/// A `report` execution running on a live agent, that agent's name and the process group of
/// the execution's command.
async fn running_report(
    agents: &Agents,
    backend: &Backend,
    watch: &mut Watch,
) -> anyhow::Result<Option<(Execution, String, Pid)>> {
    let deadline = Instant::now() + PATIENCE;
    while Instant::now() < deadline {
        watch.poll().await?;
        let params = ExecutionListParams {
            job: Some("report".parse()?),
            status: Some(ExecutionStatus::Running),
            limit: 10,
            ..Default::default()
        };
        for execution in backend.jobs().execution_list(params).await?.items {
            let Some(node) = execution.node.as_ref().map(ToString::to_string) else { continue };
            let Some(group) = agents.get(&node).and_then(|a| a.command_group(execution.id)) else {
                continue;
            };
            return Ok(Some((execution, node, group)));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(None)
}

/// Whether a later attempt of the execution's fire succeeded.
async fn retried(backend: &Backend, execution: &Execution) -> anyhow::Result<bool> {
    let params = ExecutionListParams {
        job: Some(execution.job.clone()),
        after: Some(baton::Cursor::after(execution.id)),
        limit: 100,
        ..Default::default()
    };
    let later = backend.jobs().execution_list(params).await?.items;
    Ok(later.iter().any(|e| {
        e.fire_key == execution.fire_key
            && e.attempt > execution.attempt
            && e.status == ExecutionStatus::Succeeded
    }))
}

/// Polls (printing what happens) until `done` holds, given the refusals seen so far; answers
/// false after `patience`.
async fn wait<F, Fut>(watch: &mut Watch, patience: Duration, done: F) -> anyhow::Result<bool>
where
    F: Fn(i64) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<bool>>,
{
    let deadline = Instant::now() + patience;
    while Instant::now() < deadline {
        watch.poll().await?;
        if done(watch.refusals_seen()).await? {
            return Ok(true);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(false)
}
