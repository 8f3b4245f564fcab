//! A node paused in the middle of a write: its execution is abandoned and retried on another
//! node under a greater token, and when the paused command resumes, its late write meets the
//! fence.

use std::time::{Duration, Instant};

use baton::Backend;
use baton::core::job::ExecutionListParams;
use baton::core::{Execution, ExecutionStatus};
use nix::sys::signal::{Signal, kill};

use super::agents::Agents;
use super::watch::Watch;

/// How long the demo waits for each step before it gives the step up.
const PATIENCE: Duration = Duration::from_secs(20);

/// Pauses the agent running a `report` execution, with its commands, until the fire was
/// written again by its retry elsewhere; then resumes the commands, so that their late write
/// is refused, and the agent.
pub async fn stale_write(
    agents: &Agents,
    backend: &Backend,
    watch: &mut Watch,
) -> anyhow::Result<()> {
    let Some((execution, name, commands)) = running_report(agents, backend, watch).await? else {
        println!("{}  no report execution ran on a live agent: the pause is left out", watch.at());
        return Ok(());
    };
    let Some(agent) = agents.get(&name) else { return Ok(()) };
    for pid in &commands {
        let _ = kill(*pid, Signal::SIGSTOP);
    }
    agent.signal(Signal::SIGSTOP);
    let token = execution.token.map(|t| t.to_string()).unwrap_or_default();
    println!(
        "{}  ** paused {name} and its commands (SIGSTOP) while report {} runs there under token \
         {token} **",
        watch.at(),
        execution.scheduled_at
    );
    let rewritten = wait(watch, |_| async { retried(backend, &execution).await }).await?;
    if !rewritten {
        println!("{}  the fire was not retried in time", watch.at());
    }
    for pid in &commands {
        let _ = kill(*pid, Signal::SIGCONT);
    }
    println!(
        "{}  ** resumed the paused commands: they write late, with their old token **",
        watch.at()
    );
    let seen = watch.refusals_seen();
    wait(watch, |refused| async move { Ok(refused > seen) }).await?;
    agent.signal(Signal::SIGCONT);
    println!(
        "{}  ** resumed {name}: it finds its work was taken over, and carries on **",
        watch.at()
    );
    Ok(())
}

/// A `report` execution running on a live agent whose command runs, with that agent's name and
/// commands.
async fn running_report(
    agents: &Agents,
    backend: &Backend,
    watch: &mut Watch,
) -> anyhow::Result<Option<(Execution, String, Vec<nix::unistd::Pid>)>> {
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
            let Some(agent) = agents.get(&node) else { continue };
            let commands = agent.commands();
            if !commands.is_empty() {
                return Ok(Some((execution, node, commands)));
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
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
/// false after [`PATIENCE`].
async fn wait<F, Fut>(watch: &mut Watch, done: F) -> anyhow::Result<bool>
where
    F: Fn(i64) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<bool>>,
{
    let deadline = Instant::now() + PATIENCE;
    while Instant::now() < deadline {
        watch.poll().await?;
        if done(watch.refusals_seen()).await? {
            return Ok(true);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(false)
}
