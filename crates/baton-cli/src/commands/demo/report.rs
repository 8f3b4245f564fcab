//! The demo's verification: the audit of every fire owed, the fenced ledger, the failover,
//! the partitions, and the leader-change history.

use std::time::Duration;

use baton::core::ExecutionStatus;
use baton::core::cluster::{BatchListParams, BatchState, PartitionListParams, PartitionState};
use baton::core::job::{ExecutionListParams, all_executions, all_jobs, audit};
use baton::{Backend, HistoryParams, LeaseName};
use sqlx::SqliteConnection;

/// Prints the verification report; answers whether the record is clean.
pub async fn verify(
    backend: &Backend,
    ledger: &mut SqliteConnection,
    failover: Duration,
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
    let pruned = jobs.job_pruned_through().await?;
    let report = audit(&all_jobs, &executions, &pruned, first, until, Duration::from_secs(2));
    let (fires, writes): (i64, i64) =
        sqlx::query_as("SELECT count(*), coalesce(sum(writes), 0) FROM demo_ledger")
            .fetch_one(&mut *ledger)
            .await?;
    let (rejected,): (i64,) =
        sqlx::query_as("SELECT count(*) FROM demo_rejected").fetch_one(&mut *ledger).await?;
    let (batches, partitions, completed) = partitions(backend).await?;
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
        "  ledger: {fires} fires written ({} written again by a retry); late writes REJECTED by \
         the fence: {rejected}",
        writes - fires
    );
    println!("  scheduler failover after the SIGKILL: {:.1} s", failover.as_secs_f64());
    println!("  partitions completed: {completed} of {partitions}, in {batches} batches");
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
    let clean = report.is_clean();
    println!("  result: {}", if clean { "OK, every fire once" } else { "PROBLEMS FOUND" });
    Ok(clean)
}

/// The batches that finished, their partitions, and how many of those completed.
async fn partitions(backend: &Backend) -> anyhow::Result<(usize, usize, usize)> {
    let cluster = backend.cluster();
    let batches = cluster.batch_list(BatchListParams { limit: 1000, ..Default::default() }).await?;
    let finished: Vec<_> =
        batches.items.iter().filter(|batch| batch.state != BatchState::Running).collect();
    let (mut total, mut completed) = (0, 0);
    for batch in &finished {
        let params = PartitionListParams { batch: batch.id, state: None, after: None, limit: 1000 };
        let partitions = cluster.partition_list(params).await?.items;
        total += partitions.len();
        completed += partitions.iter().filter(|p| p.state == PartitionState::Completed).count();
    }
    Ok((finished.len(), total, completed))
}
