//! The demo's verification: the audit of every fire owed, the fenced ledger, and the
//! leader-change history.

use std::collections::HashSet;
use std::time::Duration;

use baton::core::ExecutionStatus;
use baton::core::job::{ExecutionListParams, all_executions, all_jobs, audit};
use baton::{Backend, HistoryParams, LeaseName};
use sqlx::SqliteConnection;

/// Prints the verification report; answers whether the record is clean.
pub async fn verify(
    backend: &Backend,
    ledger: &mut SqliteConnection,
    rejected: usize,
) -> anyhow::Result<bool> {
    let jobs = backend.jobs();
    let all_jobs = all_jobs(&*jobs, None).await?;
    let executions = all_executions(&*jobs, ExecutionListParams::default()).await?;
    let (Some(first), Some(last)) = (
        executions.iter().map(|e| e.scheduled_at).min(),
        executions.iter().map(|e| e.scheduled_at).max(),
    ) else {
        anyhow::bail!("no execution was recorded");
    };
    let until = baton::StoreTime::from_millis(last.as_millis() + 1);
    let report = audit(&all_jobs, &executions, first, until, Duration::from_secs(2));
    let rows: Vec<(String, String)> =
        sqlx::query_as("SELECT job, fire FROM demo_ledger").fetch_all(&mut *ledger).await?;
    let distinct: HashSet<&(String, String)> = rows.iter().collect();
    let history = backend
        .leases()
        .history(HistoryParams {
            lease: Some(LeaseName::new("baton-scheduler")?),
            ..HistoryParams::default()
        })
        .await?;

    println!("\nverification");
    println!("  fires owed from {first} to {last}: {}", report.expected);
    println!(
        "  ran: {}; skipped or missed with a recorded reason: {}",
        report.ran, report.explained
    );
    println!(
        "  duplicate fires: {}; unexplained missing fires: {}",
        report.duplicates.len(),
        report.missing.len()
    );
    println!("  latest start after its instant: {:.0} ms", report.max_lag.as_secs_f64() * 1000.0);
    println!(
        "  ledger rows: {} for {} distinct fires; stale writes rejected by the fence: {rejected}",
        rows.len(),
        distinct.len()
    );
    println!("  scheduler leaders:");
    for change in &history.items {
        println!(
            "    {}  {:<40} token {:>4}  {}",
            change.at, change.holder, change.token, change.reason
        );
    }
    let settled = executions
        .iter()
        .filter(|e| matches!(e.status, ExecutionStatus::Skipped | ExecutionStatus::Missed));
    for execution in settled {
        let detail = execution.detail.as_deref().unwrap_or_default();
        println!("  {} {} {}: {detail}", execution.job, execution.scheduled_at, execution.status);
    }
    for finding in report.duplicates.iter().chain(&report.missing) {
        println!("  problem: {} at {}: {}", finding.job, finding.scheduled_at, finding.detail);
    }
    let clean = report.is_clean() && rows.len() == distinct.len();
    println!("  result: {}", if clean { "OK, every fire once" } else { "PROBLEMS FOUND" });
    Ok(clean)
}
