//! `baton audit`: recomputes the fires every job owed in a window and checks the record.

use std::process::ExitCode;

use baton::StoreTime;
use baton::core::job::{all_jobs, audit, executions_for_audit};
use baton::core::schedule::JobName;
use baton::core::time::parse_duration;
use baton_server::views::AuditView;

use super::connect;
use super::jobs::existing;
use super::output::print_json;
use crate::cli::{AuditArgs, Output};

/// Exit code when the record has a duplicate or an unexplained missing fire.
const UNCLEAN: u8 = 1;

pub async fn run(args: AuditArgs, output: Output) -> anyhow::Result<ExitCode> {
    let store = connect(&args.backend).await?.jobs();
    let now = store.now().await?;
    let since = instant(&args.since, now)?;
    let until = instant(&args.until, now)?;
    anyhow::ensure!(since < until, "invalid window: --since {since} is not before --until {until}");
    let job = args.job.as_deref().map(str::parse::<JobName>).transpose()?;
    let jobs = match &job {
        Some(name) => vec![existing(&*store, name).await?],
        None => all_jobs(&*store, None).await?,
    };
    let executions = executions_for_audit(&*store, job, since, until).await?;
    let pruned = store.job_pruned_through().await?;
    let report = audit(&jobs, &executions, &pruned, since, until, args.late_after);
    let code = if report.is_clean() { ExitCode::SUCCESS } else { ExitCode::from(UNCLEAN) };
    if output == Output::Json {
        print_json(&AuditView::of(&report, since, until))?;
        return Ok(code);
    }
    println!("audit of {} jobs, fires in [{since}, {until})", report.jobs);
    println!("  expected fires      {}", report.expected);
    println!("  ran                 {}", report.ran);
    println!("  skipped or missed   {} (recorded with their policy and reason)", report.explained);
    println!("  pruned              {} (records deleted by retention)", report.pruned);
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
    Ok(code)
}

/// An RFC 3339 instant, or a duration meaning that long before `now`.
fn instant(text: &str, now: StoreTime) -> anyhow::Result<StoreTime> {
    if let Ok(ago) = parse_duration(text) {
        return Ok(StoreTime::from_millis(now.as_millis() - i64::try_from(ago.as_millis())?));
    }
    StoreTime::parse(text).map_err(|_| {
        anyhow::Error::from(baton::Error::invalid_input(format!(
            "invalid time {}: expected RFC 3339 (2026-11-21T10:00:00Z) or a duration ago (10m)",
            baton::core::echo::quoted(text)
        )))
    })
}
