//! The overview: nodes, leases, jobs, the latest executions and batches.

use askama::Template;
use axum::extract::State;
use baton::core::cluster::NodeListParams;
use baton::core::job::JobListParams;

use super::alarms::{Alarm, alarms};
use super::chart;
use super::format::instant;
use super::hour::last_hour;
use super::jobs::JobRow;
use super::leases::{LeaseRow, Picture};
use super::rows::{BatchRow, ExecutionRow, NodeRow};
use super::{PageResult, page};
use crate::outcome::{execution_ceiling, last_outcomes};
use crate::state::AppState;
use crate::tail::{Batches, Executions, LeaderChanges, ceiling, newest};

/// How many of each the overview shows.
const NODES: u32 = 100;
const JOBS: u32 = 100;
const EXECUTIONS: u32 = 10;
const BATCHES: u32 = 10;

#[derive(Template)]
#[template(path = "overview.html")]
struct Overview {
    now: String,
    nodes: Vec<NodeRow>,
    more_nodes: bool,
    leases: Vec<LeaseRow>,
    alarms: Vec<Alarm>,
    /// Executions per minute of the last hour, as an inline SVG.
    activity: String,
    jobs: Vec<JobRow>,
    more_jobs: bool,
    executions: Vec<ExecutionRow>,
    batches: Vec<BatchRow>,
}

/// `/`: the overview.
pub(crate) async fn show(State(state): State<AppState>) -> PageResult {
    let (leases, jobs, cluster) =
        (state.backend.leases(), state.backend.jobs(), state.backend.cluster());
    let now = leases.now().await?;

    let node_page =
        cluster.node_list(NodeListParams { limit: NODES, ..NodeListParams::default() }).await?;
    let nodes = node_page.items.iter().map(|node| NodeRow::new(node, now)).collect();
    let lease_records = leases.list().await?;
    let alarms = alarms(&lease_records, &node_page.items, now);

    let all_changes = LeaderChanges { store: &*leases, lease: None };
    let history_ceiling = ceiling(&all_changes, &state.hints.history).await?;
    let mut lease_rows = Vec::new();
    for lease in lease_records {
        let window = (history_ceiling, LeaseRow::OVERVIEW_TERMS);
        lease_rows.push(LeaseRow::read(&*leases, &lease, window, Picture::Strip, now).await?);
    }

    let job_page = jobs.job_list(JobListParams { limit: JOBS, ..JobListParams::default() }).await?;
    let executions_ceiling = execution_ceiling(&*jobs, &state.hints.executions).await?;
    let names: Vec<_> = job_page.items.iter().map(|job| job.name().clone()).collect();
    let outcomes = last_outcomes(&jobs, &names, executions_ceiling).await?;
    let job_rows = job_page
        .items
        .iter()
        .zip(&outcomes)
        .map(|(job, last)| JobRow::new(job, last.as_ref(), now))
        .collect();

    let hour = last_hour(&*jobs, executions_ceiling, chart::hour_start(now)).await?;
    let activity = chart::per_minute(&hour.executions, hour.counted_from, now);
    let all = Executions { store: &*jobs, job: None, status: None };
    let recent = newest(&all, executions_ceiling, EXECUTIONS).await?;
    let executions = recent.iter().map(|e| ExecutionRow::new(e, now)).collect();
    let all_batches = Batches { store: &*cluster };
    let batches_ceiling = ceiling(&all_batches, &state.hints.batches).await?;
    let batches = newest(&all_batches, batches_ceiling, BATCHES).await?;

    page(&Overview {
        now: instant(now),
        nodes,
        more_nodes: node_page.next.is_some(),
        leases: lease_rows,
        alarms,
        activity,
        jobs: job_rows,
        more_jobs: job_page.next.is_some(),
        executions,
        batches: batches.iter().map(BatchRow::new).collect(),
    })
}
