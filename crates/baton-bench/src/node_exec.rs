//! The executions node roles: drain the executions recorded up front for the jobs of one mode,
//! starting when told to, and report completions as they happen.
//!
//! - `exec-default`: a `Scheduler` with the default configuration (its worker claims up to
//!   `claim_batch` executions for its free slots and records the outcomes that finished
//!   together with one `complete_batch`).
//! - `exec-batched`: a minimal worker loop over the `JobStore`: claim up to `--batch`
//!   executions, run the trivial handler for each, and finish them with `complete_batch`, the
//!   trait's batched completion as the store implements it (one statement where the store
//!   overrides it, one by one by the trait's default otherwise).

use std::sync::Arc;
use std::time::Duration;

use baton::ElectorConfig;
use baton::core::job::{ClaimParams, CompleteParams};
use baton::core::schedule::JobName;
use baton::core::{Execution, ExecutionStatus, JobStore};
use baton::scheduler::{Scheduler, SchedulerConfig};
use tokio_util::sync::CancellationToken;

use crate::args::NodeRole;
use crate::bench_jobs;
use crate::node::{Node, emit};
use crate::wire::{Command, Message};

/// How often progress is reported while draining.
const PROGRESS_EVERY: Duration = Duration::from_millis(20);
/// How long the worker loop waits after a claim found nothing.
const IDLE_PAUSE: Duration = Duration::from_millis(5);

/// Runs one of the executions roles.
pub(crate) async fn run(mut node: Node) -> anyhow::Result<()> {
    let mode = node.args.role.exec_mode().unwrap_or("default");
    let names: Vec<String> =
        (0..node.args.jobs).map(|k| bench_jobs::exec_name(&node.args.run, mode, k)).collect();
    // One call before the start, so the connection is open when the clock starts.
    node.jobs.now().await?;
    emit(&Message::Ready(node.holder.to_string()));
    if node.next().await != Command::Start {
        return report(&node);
    }
    node.completions.start();
    let stop = CancellationToken::new();
    let progress = tokio::spawn(progress(node.completions.clone(), stop.clone()));
    if node.args.role == NodeRole::ExecDefault {
        let config = SchedulerConfig::new(ElectorConfig::new(node.holder.clone()));
        let mut builder = Scheduler::builder(node.leases.clone(), node.jobs.clone()).config(config);
        for k in 0..node.args.jobs {
            builder =
                builder.job(bench_jobs::exec_job(&node.args.run, mode, k, bench_jobs::nothing)?);
        }
        let scheduler = builder.start().await?;
        node.until_stop().await;
        scheduler.shutdown().await;
    } else {
        let jobs = names.iter().map(JobName::new).collect::<baton::Result<Vec<_>>>()?;
        let claim = ClaimParams {
            node: node.holder.clone(),
            limit: node.args.batch,
            jobs,
            ahead: Duration::ZERO,
        };
        let mut worker = tokio::spawn(drain(node.jobs.clone(), claim, stop.clone()));
        tokio::select! {
            () = node.until_stop() => {
                stop.cancel();
                worker.await??;
            }
            // The loop ends by itself only when a store call failed: fail the node at once.
            ended = &mut worker => {
                ended??;
                node.until_stop().await;
            }
        }
    }
    stop.cancel();
    let _ = progress.await;
    emit(&Message::Done(node.completions.total()));
    report(&node)
}

/// Claims and completes batches until `stop` fires; the tallied store notes the completions.
async fn drain(
    jobs: Arc<dyn JobStore>,
    claim: ClaimParams,
    stop: CancellationToken,
) -> anyhow::Result<()> {
    while !stop.is_cancelled() {
        let claimed = jobs.claim(claim.clone()).await?;
        if claimed.running.is_empty() {
            tokio::time::sleep(IDLE_PAUSE).await;
            continue;
        }
        let batch: Vec<CompleteParams> = claimed.running.iter().filter_map(succeeded).collect();
        for result in jobs.complete_batch(batch).await {
            result?;
        }
    }
    Ok(())
}

/// The trivial handler's outcome for a claimed execution: success, under its token.
fn succeeded(execution: &Execution) -> Option<CompleteParams> {
    Some(CompleteParams {
        id: execution.id,
        token: execution.token?,
        status: ExecutionStatus::Succeeded,
        detail: None,
        output: None,
    })
}

/// Reports the completions so far whenever they changed, until `stop` fires.
async fn progress(completions: Arc<crate::completions::Completions>, stop: CancellationToken) {
    let mut reported = 0;
    while !stop.is_cancelled() {
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(PROGRESS_EVERY) => {}
        }
        let total = completions.total();
        if total != reported {
            emit(&Message::Done(total));
            reported = total;
        }
    }
}

fn report(node: &Node) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    node.report_window(&mut out)?;
    for (offset_ms, count) in node.completions.histogram() {
        writeln!(out, "{}", Message::Completed { offset_ms, count }.line())?;
    }
    writeln!(out, "{}", Message::End.line())?;
    out.flush()?;
    Ok(())
}
