//! A job's row and the job page: next fires, policy and latest executions.

use askama::Template;
use axum::extract::{Path, State};
use baton::StoreTime;
use baton::core::job::job_not_registered;
use baton::core::schedule::JobName;
use baton::core::{Execution, Job};

use super::chart;
use super::format::{duration, instant, relative};
use super::rows::ExecutionRow;
use super::{PageResult, page};
use crate::outcome::{execution_ceiling, last_outcome};
use crate::params::name;
use crate::state::AppState;
use crate::tail::{Executions, newest};

/// How many next fires and executions the job page lists.
const NEXT_FIRES: usize = 5;
const EXECUTIONS: usize = 20;
/// How many of the latest executions its picture shows.
const PICTURED: u32 = 100;

/// The newest finished execution of a job.
pub(crate) struct LastOutcome {
    pub id: i64,
    pub status: &'static str,
    pub when: String,
}

/// A job with its next fire and last outcome.
pub(crate) struct JobRow {
    pub name: String,
    pub schedule: String,
    pub paused: bool,
    pub next_fire: String,
    pub next_fire_relative: String,
    pub last: Option<LastOutcome>,
}

impl JobRow {
    pub fn new(job: &Job, last: Option<&Execution>, now: StoreTime) -> Self {
        let next = next_fires(job, now).next();
        JobRow {
            name: job.name().to_string(),
            schedule: job.definition.schedule.to_string(),
            paused: job.paused,
            next_fire: next.map_or_else(|| "none".to_string(), instant),
            next_fire_relative: next.map(|at| relative(at, now)).unwrap_or_default(),
            last: last.map(|e| LastOutcome {
                id: e.id,
                status: e.status.as_str(),
                when: relative(e.finished_at.unwrap_or(e.scheduled_at), now),
            }),
        }
    }
}

/// The fires that will run, after `now` and after those marked to be skipped.
fn next_fires(job: &Job, now: StoreTime) -> impl Iterator<Item = StoreTime> + '_ {
    let mut cursor = job.skip_through.map_or(now, |through| through.max(now));
    std::iter::from_fn(move || {
        cursor = job.definition.schedule.next_after(cursor)?;
        Some(cursor)
    })
}

#[derive(Template)]
#[template(path = "job.html")]
struct JobPage {
    job: JobRow,
    facts: Vec<(&'static str, String)>,
    next_fires: Vec<(String, String)>,
    executions: Vec<ExecutionRow>,
    /// The latest executions' lag and duration, as an inline SVG.
    picture: Option<String>,
}

/// `/jobs/{name}`: the job page.
pub(crate) async fn show(State(state): State<AppState>, Path(job): Path<String>) -> PageResult {
    let job: JobName = name(&job)?;
    let job = &job;
    let store = state.backend.jobs();
    let record = store.job_get(job).await?.ok_or_else(|| job_not_registered(job))?;
    let now = store.now().await?;
    let ceiling = execution_ceiling(&*store, &state.hints.executions).await?;
    let last = last_outcome(&*store, job, ceiling).await?;
    let listing = Executions { store: &*store, job: Some(job.clone()), status: None };
    let executions = newest(&listing, ceiling, PICTURED).await?;
    let policy = &record.definition.policy;
    let mut facts = vec![
        ("Overlap", policy.overlap.to_string()),
        ("Misfire", format!("{} (after {})", policy.misfire, duration(policy.misfire_threshold))),
        ("Timeout", policy.timeout.map_or_else(|| "none".to_string(), duration)),
        ("Attempts", policy.retry.max_attempts.to_string()),
        ("Registered", instant(record.created_at)),
    ];
    if let Some(through) = record.skip_through.filter(|through| *through > now) {
        facts.push(("Skipping", format!("fires up to {}", instant(through))));
    }
    page(&JobPage {
        job: JobRow::new(&record, last.as_ref(), now),
        facts,
        next_fires: next_fires(&record, now)
            .take(NEXT_FIRES)
            .map(|at| (instant(at), relative(at, now)))
            .collect(),
        executions: executions.iter().take(EXECUTIONS).map(|e| ExecutionRow::new(e, now)).collect(),
        picture: chart::fires(&executions, job.as_str(), now),
    })
}
