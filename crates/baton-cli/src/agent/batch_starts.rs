//! Batches started on a schedule: a `[[batch]]` with `cron`, `every` or `at` registers a
//! scheduler job of the same name whose every fire starts a batch, unless one still runs.

use std::sync::Arc;

use baton::cluster::{BatchState, Cluster};
use baton::core::cluster::BatchListParams;
use baton::core::schedule::JobName;
use baton::scheduler::{Job, JobContext};

use super::config::ScheduleSpec;
use super::jobs::builder;

/// The scheduler job that starts batches of `name` on `schedule`.
pub fn batch_starter(
    name: &JobName,
    schedule: &ScheduleSpec,
    cluster: Arc<Cluster>,
) -> baton::Result<Job> {
    let job = name.clone();
    builder(name.as_str(), schedule).handler(move |ctx: JobContext| {
        let (cluster, job) = (cluster.clone(), job.clone());
        async move { start(&cluster, &job, &ctx).await }
    })
}

/// Starts a batch of `job`, or nothing when one is still running; what happened is kept as
/// the execution's output.
async fn start(cluster: &Cluster, job: &JobName, ctx: &JobContext) -> baton::Result<()> {
    let params = BatchListParams {
        name: Some(job.clone()),
        state: Some(BatchState::Running),
        limit: 1,
        ..Default::default()
    };
    if let Some(running) = cluster.store().batch_list(params).await?.items.first() {
        ctx.set_output(format!("batch {} of {job} is still running: no batch started", running.id));
        return Ok(());
    }
    let batch = cluster.run(job).await?;
    ctx.set_output(format!("started batch {batch} of {job}"));
    Ok(())
}
