//! The scheduler node roles: a `Scheduler` with the scenario's jobs, from start to a graceful
//! shutdown.
//!
//! - `cron`: jobs firing every second whose handler only notes its lag: the store's time when
//!   the handler starts (estimated from a reading of the store's clock, see `store_clock`)
//!   less the fire's scheduled instant. Each node has a slot per job and claims up to that
//!   many at once, so that a second's fires can be claimed ahead and start at their instant;
//!   everything else is the default configuration.
//! - `idle`: jobs on a yearly cron that does not fire while measured; nothing runs.

use std::convert::Infallible;
use std::io::Write;
use std::sync::{Arc, Mutex};

use baton::ElectorConfig;
use baton::scheduler::{Job, JobContext, Scheduler, SchedulerConfig};

use crate::bench_jobs;
use crate::node::{Node, emit};
use crate::store_clock::StoreClock;
use crate::wire::Message;

/// Lag samples: (execution id, scheduled instant in ms, lag in µs).
type Lags = Arc<Mutex<Vec<(i64, i64, i64)>>>;

/// The `cron` role.
pub(crate) async fn cron(mut node: Node) -> anyhow::Result<()> {
    let clock = StoreClock::read(&*node.jobs).await?;
    let lags: Lags = Arc::default();
    let (run, keep) = (node.args.run.clone(), node.args.keep);
    let mut jobs = Vec::with_capacity(node.args.jobs as usize);
    for index in 0..node.args.jobs {
        let lags = lags.clone();
        let handler = move |ctx: JobContext| {
            let scheduled = ctx.scheduled_at().as_millis();
            let lag = clock.now_us() - scheduled * 1000;
            let sample = (ctx.execution_id(), scheduled, lag);
            lags.lock().unwrap_or_else(|p| p.into_inner()).push(sample);
            std::future::ready(Ok::<(), Infallible>(()))
        };
        jobs.push(bench_jobs::cron_job(&run, index, keep, handler)?);
    }
    let slots = node.args.jobs.clamp(1, 1000);
    let mut config = SchedulerConfig::new(ElectorConfig::new(node.holder.clone()));
    (config.max_concurrent, config.claim_batch) = (slots as usize, slots);
    serve(&mut node, config, jobs).await?;
    let lags = std::mem::take(&mut *lags.lock().unwrap_or_else(|p| p.into_inner()));
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    node.report_window(&mut out)?;
    for (id, scheduled_ms, lag_us) in lags {
        writeln!(out, "{}", Message::Lag { id, scheduled_ms, lag_us }.line())?;
    }
    writeln!(out, "{}", Message::End.line())?;
    out.flush()?;
    Ok(())
}

/// The `idle` role.
pub(crate) async fn idle(mut node: Node) -> anyhow::Result<()> {
    let expression = node
        .args
        .cron
        .clone()
        .ok_or_else(|| anyhow::anyhow!("the idle role needs --cron EXPRESSION"))?;
    let (run, count) = (node.args.run.clone(), node.args.jobs);
    let jobs = (0..count)
        .map(|index| bench_jobs::idle_job(&run, count, index, &expression, bench_jobs::nothing))
        .collect::<baton::Result<Vec<_>>>()?;
    let config = SchedulerConfig::new(ElectorConfig::new(node.holder.clone()));
    serve(&mut node, config, jobs).await?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    node.report_window(&mut out)?;
    writeln!(out, "{}", Message::End.line())?;
    out.flush()?;
    Ok(())
}

/// Starts a scheduler with `jobs` (registering them), reports ready, and shuts it down
/// gracefully when told to stop.
async fn serve(node: &mut Node, config: SchedulerConfig, jobs: Vec<Job>) -> anyhow::Result<()> {
    let mut builder = Scheduler::builder(node.leases.clone(), node.jobs.clone()).config(config);
    for job in jobs {
        builder = builder.job(job);
    }
    let scheduler = builder.start().await?;
    emit(&Message::Ready(node.holder.to_string()));
    node.until_stop().await;
    scheduler.shutdown().await;
    Ok(())
}
