//! The executions, newest first, and one execution's page with its output.

use askama::Template;
use axum::extract::{Path, State};
use baton::core::ExecutionStatus;
use baton::core::schedule::JobName;

use super::format::{instant, relative};
use super::rows::ExecutionRow;
use super::{PageResult, page};
use crate::error::ApiError;
use crate::params::{Query, id, optional};
use crate::state::AppState;
use crate::tail::{Executions, ceiling, newest};

/// Executions per page.
const PAGE: u32 = 50;

#[derive(Template)]
#[template(path = "executions.html")]
struct ExecutionsPage {
    job: String,
    status: String,
    statuses: Vec<&'static str>,
    executions: Vec<ExecutionRow>,
    /// The query string of the filters, ending with `&` when not empty.
    filter_query: String,
    older: Option<i64>,
}

#[derive(serde::Deserialize)]
pub(crate) struct ExecutionsQuery {
    job: Option<String>,
    status: Option<String>,
    before: Option<String>,
}

/// `/executions`: a page of executions, newest first, optionally of one job and status.
pub(crate) async fn list(
    State(state): State<AppState>,
    Query(query): Query<ExecutionsQuery>,
) -> PageResult {
    let job = optional::<JobName>(query.job.as_deref())?;
    let status = optional::<ExecutionStatus>(query.status.as_deref())?;
    let before = query.before.as_deref().map(|b| id("execution", b));
    let before = before.transpose()?;
    let store = state.backend.jobs();
    let now = store.now().await?;
    let listing = Executions { store: &*store, job: job.clone(), status };
    let below = match before {
        Some(before) => Some(before),
        None => ceiling(&listing, &state.hints.executions).await?,
    };
    let found = newest(&listing, below, PAGE).await?;
    let older = found.last().filter(|_| found.len() == PAGE as usize).map(|e| e.id);
    let mut filter_query = String::new();
    if let Some(job) = &job {
        filter_query.push_str(&format!("job={}&", encode(job.as_str())));
    }
    if let Some(status) = status {
        filter_query.push_str(&format!("status={status}&"));
    }
    page(&ExecutionsPage {
        job: job.map(|job| job.to_string()).unwrap_or_default(),
        status: status.map(|s| s.as_str().to_string()).unwrap_or_default(),
        statuses: ExecutionStatus::ALL.iter().map(|s| s.as_str()).collect(),
        executions: found.iter().map(|e| ExecutionRow::new(e, now)).collect(),
        filter_query,
        older,
    })
}

/// Percent-encodes everything but unreserved characters, for a query value.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (byte as char).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

#[derive(Template)]
#[template(path = "execution.html")]
struct ExecutionPage {
    id: i64,
    job: String,
    status: &'static str,
    facts: Vec<(&'static str, String)>,
    output: Option<String>,
}

/// `/executions/{id}`: one execution with its output.
pub(crate) async fn show(
    State(state): State<AppState>,
    Path(execution): Path<String>,
) -> PageResult {
    let id = id("execution", &execution)?;
    let store = state.backend.jobs();
    let e = store
        .execution_get(id)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("execution {id} does not exist")))?;
    let output = store.execution_output(id).await?;
    let now = store.now().await?;
    let row = ExecutionRow::new(&e, now);
    let at = |time: Option<baton::StoreTime>| {
        time.map_or_else(String::new, |t| format!("{} ({})", instant(t), relative(t, now)))
    };
    let mut facts = vec![
        ("Fire", e.fire_key.to_string()),
        ("Scheduled", at(Some(e.scheduled_at))),
        ("Attempt", e.attempt.to_string()),
        ("Trigger", e.trigger.to_string()),
        ("Node", row.node),
        ("Token", e.token.map(|t| t.to_string()).unwrap_or_default()),
        ("Started", at(e.started_at)),
        ("Finished", at(e.finished_at)),
        ("Took", row.took),
        ("Detail", e.detail.clone().unwrap_or_default()),
    ];
    if let Some(through) = e.covers_through {
        facts.push(("Covers", format!("{} fires through {}", e.covers_count, instant(through))));
    }
    facts.retain(|(_, value)| !value.is_empty());
    page(&ExecutionPage { id, job: e.job.to_string(), status: e.status.as_str(), facts, output })
}

#[cfg(test)]
mod tests {
    #[test]
    fn query_values_are_percent_encoded() {
        assert_eq!(super::encode("a/b c&d"), "a%2Fb%20c%26d");
        assert_eq!(super::encode("정"), "%EC%A0%95");
    }
}
