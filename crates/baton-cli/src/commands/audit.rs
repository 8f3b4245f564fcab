//! `baton audit`: recomputes the fires every job owed in a window and checks the record.

use std::process::ExitCode;

use baton::StoreTime;
use baton::core::job::{ExecutionListParams, JobListParams, audit};
use baton::core::schedule::JobName;
use baton::core::time::parse_duration;
use baton::core::{Execution, ExecutionStatus, Job, JobStore};

use super::connect;
use super::jobs::existing;
use crate::cli::AuditArgs;

/// Exit code when the record has a duplicate or an unexplained missing fire.
const UNCLEAN: u8 = 1;

pub async fn run(args: AuditArgs) -> anyhow::Result<ExitCode> {
    let store = connect(&args.backend).await?.jobs();
    let now = store.now().await?;
    let since = instant(&args.since, now)?;
    let until = instant(&args.until, now)?;
    anyhow::ensure!(since < until, "invalid window: --since {since} is not before --until {until}");
    let jobs = match &args.job {
        Some(name) => vec![existing(&*store, &name.parse::<JobName>()?).await?],
        None => all_jobs(&*store).await?,
    };
    let job = args.job.as_deref();
    let mut executions = fetch(&*store, job, None, Some(since), until).await?;
    // Missed runs recorded before the window may cover fires inside it.
    let earlier = fetch(&*store, job, Some(ExecutionStatus::Missed), None, since).await?;
    executions.extend(earlier.into_iter().filter(|e| e.covers_through.is_some_and(|t| t >= since)));
    let report = audit(&jobs, &executions, since, until, args.late_after);
    println!("audit of {} jobs, fires in [{since}, {until})", report.jobs);
    println!("  expected fires      {}", report.expected);
    println!("  ran                 {}", report.ran);
    println!("  skipped or missed   {} (recorded with their policy and reason)", report.explained);
    println!("  duplicates          {}", report.duplicates.len());
    println!("  missing             {}", report.missing.len());
    println!(
        "  late (> {:?})       {} (max lag {:.3}s)",
        args.late_after,
        report.late.len(),
        report.max_lag.as_secs_f64()
    );
    for (kind, findings) in
        [("duplicate", &report.duplicates), ("missing", &report.missing), ("late", &report.late)]
    {
        for finding in findings.iter().take(20) {
            println!("  {kind}: {} at {}: {}", finding.job, finding.scheduled_at, finding.detail);
        }
    }
    Ok(if report.is_clean() { ExitCode::SUCCESS } else { ExitCode::from(UNCLEAN) })
}

/// An RFC 3339 instant, or a duration meaning that long before `now`.
fn instant(text: &str, now: StoreTime) -> anyhow::Result<StoreTime> {
    if let Ok(ago) = parse_duration(text) {
        return Ok(StoreTime::from_millis(now.as_millis() - i64::try_from(ago.as_millis())?));
    }
    StoreTime::parse(text).map_err(|_| {
        anyhow::Error::from(baton::Error::invalid_input(format!(
            "invalid time {text:?}: expected RFC 3339 (2026-11-21T10:00:00Z) or a duration ago (10m)"
        )))
    })
}

async fn all_jobs(store: &dyn JobStore) -> anyhow::Result<Vec<Job>> {
    let mut jobs = Vec::new();
    let mut params = JobListParams { limit: 1000, ..JobListParams::default() };
    loop {
        let page = store.job_list(params.clone()).await?;
        jobs.extend(page.items);
        match page.next {
            Some(next) => params.after = Some(next),
            None => return Ok(jobs),
        }
    }
}

async fn fetch(
    store: &dyn JobStore,
    job: Option<&str>,
    status: Option<ExecutionStatus>,
    since: Option<StoreTime>,
    until: StoreTime,
) -> anyhow::Result<Vec<Execution>> {
    let mut params = ExecutionListParams {
        job: job.map(str::parse).transpose()?,
        status,
        since,
        until: Some(until),
        limit: 1000,
        ..ExecutionListParams::default()
    };
    let mut all = Vec::new();
    loop {
        let page = store.execution_list(params.clone()).await?;
        all.extend(page.items);
        match page.next {
            Some(next) => params.after = Some(next),
            None => return Ok(all),
        }
    }
}
