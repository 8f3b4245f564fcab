//! The jobs of the scheduler scenarios, defined alike by the parent and every node process
//! (a node registering a different definition would make the leader plan the job again).

use std::time::Duration;

use baton::StoreTime;
use baton::core::job::all_jobs;
use baton::core::schedule::{JobPolicy, OverlapPolicy, Retention};
use baton::core::{Job, JobStore};
use baton::scheduler::{Handler, Job as SchedulerJob};

/// Records kept per job: every execution of a run stays readable for the checks.
pub(crate) const KEEP_ALL: u32 = 1_000_000;

/// The prefix of every job of a run.
pub(crate) fn prefix(run: &str) -> String {
    format!("bench-{run}-")
}

/// Job `index` of the cron scenario.
pub(crate) fn cron_name(run: &str, index: u32) -> String {
    format!("{}cron-{index}", prefix(run))
}

/// Job `index` of the idle scenario with `count` jobs.
pub(crate) fn idle_name(run: &str, count: u32, index: u32) -> String {
    format!("{}idle{count}-{index}", prefix(run))
}

/// Job `index` of the executions scenario's `mode`.
pub(crate) fn exec_name(run: &str, mode: &str, index: u32) -> String {
    format!("{}exec-{mode}-{index}", prefix(run))
}

fn keeping(records: u32) -> JobPolicy {
    let records = records.max(100);
    JobPolicy::default().with_retention(Retention::default().with_counts(records, records))
}

/// A cron-scenario job: fires every second, keeps `keep` records, default policies otherwise.
pub(crate) fn cron_job(
    run: &str,
    index: u32,
    keep: u32,
    handler: impl Handler,
) -> baton::Result<SchedulerJob> {
    SchedulerJob::every(&cron_name(run, index), Duration::from_secs(1))
        .policy(keeping(keep))
        .handler(handler)
}

/// An idle-scenario job: a yearly cron `expression` that does not fire during the run.
pub(crate) fn idle_job(
    run: &str,
    count: u32,
    index: u32,
    expression: &str,
    handler: impl Handler,
) -> baton::Result<SchedulerJob> {
    SchedulerJob::cron(&idle_name(run, count, index), expression).handler(handler)
}

/// An executions-scenario job: never fires by itself (its executions are recorded up front),
/// runs them side by side (overlap allow), and keeps every record.
pub(crate) fn exec_job(
    run: &str,
    mode: &str,
    index: u32,
    handler: impl Handler,
) -> baton::Result<SchedulerJob> {
    SchedulerJob::once(&exec_name(run, mode, index), StoreTime::from_millis(0))
        .policy(keeping(KEEP_ALL).with_overlap(OverlapPolicy::Allow))
        .handler(handler)
}

/// A trivial handler: what is measured is baton, not the job.
pub(crate) async fn nothing(_ctx: baton::scheduler::JobContext) -> Result<(), std::io::Error> {
    Ok(())
}

/// Every registered job whose name starts with `prefix`.
pub(crate) async fn registered(store: &dyn JobStore, prefix: &str) -> baton::Result<Vec<Job>> {
    Ok(all_jobs(store, None)
        .await?
        .into_iter()
        .filter(|job| job.name().as_str().starts_with(prefix))
        .collect())
}
