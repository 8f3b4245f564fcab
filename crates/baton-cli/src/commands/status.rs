//! `baton status`: one screen of the cluster: who leads each lease, the nodes, the soonest
//! fires, the latest failures and the running batches, each from a bounded read.

use baton::core::ExecutionStatus;
use baton::core::cluster::{
    BatchJob, BatchListParams, BatchState, ClusterStore, NodeListParams, PartitionListParams,
    PartitionState,
};
use baton::core::job::JobListParams;
use baton::core::page::MAX_PAGE_SIZE;
use baton::{Backend, StoreTime};
use baton_server::reads::newest_executions;
use baton_server::views::{BatchView, ExecutionView, LeaseView, NodeView, PageView};
use serde::Serialize;

use super::age::age;
use super::connect;
use super::output::print_json;
use crate::cli::{BackendArg, Output};

/// How many nodes are shown (the first by registration order).
const NODES: u32 = 50;
/// How many jobs are searched for the soonest fires (the first by id).
const JOBS: u32 = MAX_PAGE_SIZE;
/// How many of the soonest fires are shown.
const NEXT_FIRES: usize = 10;
/// How many of the latest failures are shown.
const FAILURES: u32 = 10;
/// The statuses that count as failures.
const FAILED: [ExecutionStatus; 3] =
    [ExecutionStatus::Failed, ExecutionStatus::TimedOut, ExecutionStatus::Abandoned];
/// How many running batches are shown.
const BATCHES: u32 = 10;
/// How many partitions of each running batch are counted.
const PARTITIONS: u32 = MAX_PAGE_SIZE;

/// Everything `baton status` shows.
#[derive(Debug, Serialize)]
struct StatusView {
    /// The store's clock.
    now: String,
    /// The leases held now.
    leaders: Vec<LeaseView>,
    /// The first nodes, with the cursor to list more with `baton nodes`.
    nodes: PageView<NodeView>,
    /// The soonest fires of the jobs that are not paused.
    next_fires: Vec<NextFireView>,
    /// The latest failed, timed-out and abandoned executions, newest first.
    failures: Vec<ExecutionView>,
    /// The running batches with their partitions counted by state.
    batches: Vec<BatchProgressView>,
}

/// A job's next fire.
#[derive(Debug, Serialize)]
struct NextFireView {
    job: String,
    at: String,
}

/// A running batch and how far it got.
#[derive(Debug, Serialize)]
struct BatchProgressView {
    batch: BatchView,
    /// Partitions counted (at most 1000).
    partitions: u64,
    /// Of those, how many are in each state, in the order pending, claimed, completed, failed.
    by_state: Vec<StateCount>,
    /// Whether the batch has more partitions than were counted.
    more: bool,
}

/// How many partitions are in one state.
#[derive(Debug, Serialize)]
struct StateCount {
    state: &'static str,
    count: u64,
}

pub async fn run(backend: BackendArg, output: Output) -> anyhow::Result<()> {
    let backend = connect(&backend).await?;
    let (now, status) = read(&backend).await?;
    match output {
        Output::Json => print_json(&status),
        Output::Table => {
            print_table(&status, now);
            Ok(())
        }
    }
}

/// Reads the status, and the store time it was judged at.
async fn read(backend: &Backend) -> anyhow::Result<(StoreTime, StatusView)> {
    let (leases, jobs, cluster) = (backend.leases(), backend.jobs(), backend.cluster());
    let now = leases.now().await?;
    let leaders = leases
        .list()
        .await?
        .iter()
        .filter(|lease| lease.state_at(now) == "held")
        .map(|lease| LeaseView::at(lease, now))
        .collect();
    let nodes = cluster.node_list(NodeListParams { limit: NODES, ..NodeListParams::default() });
    let nodes = PageView::of(&nodes.await?);
    let job_page = jobs.job_list(JobListParams { limit: JOBS, ..JobListParams::default() }).await?;
    let mut next_fires: Vec<(StoreTime, String)> = job_page
        .items
        .iter()
        .filter(|job| !job.paused)
        .filter_map(|job| {
            let from = job.skip_through.map_or(now, |through| through.max(now));
            Some((job.definition.schedule.next_after(from)?, job.name().to_string()))
        })
        .collect();
    next_fires.sort();
    let next_fires = next_fires
        .into_iter()
        .take(NEXT_FIRES)
        .map(|(at, job)| NextFireView { job, at: at.to_string() })
        .collect();
    let failures = newest_executions(&*jobs, &FAILED, FAILURES).await?;
    let running = BatchListParams {
        state: Some(BatchState::Running),
        limit: BATCHES,
        ..BatchListParams::default()
    };
    let mut batches = Vec::new();
    for batch in cluster.batch_list(running).await?.items {
        batches.push(progress(&*cluster, &batch).await?);
    }
    Ok((
        now,
        StatusView {
            now: now.to_string(),
            leaders,
            nodes,
            next_fires,
            failures: failures.iter().map(ExecutionView::from).collect(),
            batches,
        },
    ))
}

/// Counts the first partitions of `batch` by state.
async fn progress(store: &dyn ClusterStore, batch: &BatchJob) -> anyhow::Result<BatchProgressView> {
    let params = PartitionListParams { limit: PARTITIONS, ..PartitionListParams::new(batch.id) };
    let page = store.partition_list(params).await?;
    let by_state = PartitionState::ALL
        .iter()
        .map(|state| StateCount {
            state: state.as_str(),
            count: page.items.iter().filter(|p| p.state == *state).count() as u64,
        })
        .collect();
    Ok(BatchProgressView {
        batch: BatchView::from(batch),
        partitions: page.items.len() as u64,
        by_state,
        more: page.next.is_some(),
    })
}

fn print_table(status: &StatusView, now: StoreTime) {
    println!("LEADERS (store time {})", status.now);
    section(status.leaders.is_empty(), || {
        println!("  {:<32} {:<40} {:>8} SINCE", "LEASE", "HOLDER", "TOKEN");
        for lease in &status.leaders {
            let holder = lease.holder.as_deref().unwrap_or("-");
            println!(
                "  {:<32} {:<40} {:>8} {}",
                lease.name, holder, lease.token, lease.acquired_at
            );
        }
    });
    println!("NODES");
    section(status.nodes.items.is_empty(), || {
        println!("  {:<24} {:<11} {:>14} {:>5} {:>8}", "ID", "STATE", "HEARTBEAT", "LOAD", "TOKEN");
        for node in &status.nodes.items {
            let heartbeat =
                StoreTime::parse(&node.heartbeat_at).map_or("-".into(), |at| age(now, at));
            println!(
                "  {:<24} {:<11} {:>14} {:>5} {:>8}",
                node.id, node.state, heartbeat, node.load, node.token
            );
        }
        if let Some(next) = &status.nodes.next {
            println!("  more: baton nodes --after {next}");
        }
    });
    println!("NEXT FIRES");
    section(status.next_fires.is_empty(), || {
        for fire in &status.next_fires {
            println!("  {:<26} {}", fire.at, fire.job);
        }
    });
    println!("RECENT FAILURES");
    section(status.failures.is_empty(), || {
        println!("  {:>8} {:<24} {:<10} {:<26} DETAIL", "ID", "JOB", "STATUS", "FINISHED");
        for e in &status.failures {
            let detail = e.detail.as_deref().and_then(|d| d.lines().next()).unwrap_or_default();
            let row = format!(
                "  {:>8} {:<24} {:<10} {:<26} {}",
                e.id,
                e.job,
                e.status,
                e.finished_at.as_deref().unwrap_or("-"),
                detail
            );
            println!("{}", row.trim_end());
        }
    });
    println!("RUNNING BATCHES");
    section(status.batches.is_empty(), || {
        for running in &status.batches {
            let counts: Vec<String> = running
                .by_state
                .iter()
                .map(|count| format!("{} {}", count.count, count.state))
                .collect();
            let more = if running.more { " (first 1000 counted)" } else { "" };
            println!(
                "  batch {} of {}: {} partitions: {}{more}",
                running.batch.id,
                running.batch.job,
                running.partitions,
                counts.join(", ")
            );
        }
    });
}

/// Prints a section's rows, or `none`.
fn section(empty: bool, rows: impl FnOnce()) {
    if empty {
        println!("  none");
    } else {
        rows();
    }
}
