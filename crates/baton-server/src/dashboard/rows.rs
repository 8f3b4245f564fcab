//! The rows the dashboard's tables show, each built from a record with its times written for
//! a person.

use baton::StoreTime;
use baton::core::Execution;
use baton::core::cluster::{BatchJob, Node};

use super::format::{duration, instant, relative};

/// The most characters of an execution's detail shown in a table.
const PREVIEW_CHARS: usize = 80;

/// A node and its health.
pub(crate) struct NodeRow {
    pub id: String,
    pub state: &'static str,
    pub host: String,
    pub version: String,
    pub heartbeat: String,
    pub load: u32,
    pub started: String,
}

impl NodeRow {
    pub fn new(node: &Node, now: StoreTime) -> Self {
        NodeRow {
            id: node.id.to_string(),
            state: node.state.as_str(),
            host: node.host.clone(),
            version: node.version.clone(),
            heartbeat: relative(node.heartbeat_at, now),
            load: node.load,
            started: instant(node.started_at),
        }
    }
}

/// One execution in a table.
pub(crate) struct ExecutionRow {
    pub id: i64,
    pub job: String,
    pub status: &'static str,
    pub scheduled: String,
    pub scheduled_relative: String,
    pub attempt: u32,
    pub trigger: &'static str,
    pub node: String,
    pub took: String,
    /// The first line of the error or reason, cut short.
    pub detail: String,
}

impl ExecutionRow {
    pub fn new(e: &Execution, now: StoreTime) -> Self {
        let took = match (e.started_at, e.finished_at) {
            (Some(started), Some(finished)) => duration(finished.saturating_since(started)),
            (Some(started), None) => format!("{} so far", duration(now.saturating_since(started))),
            _ => String::new(),
        };
        let first_line = e.detail.as_deref().and_then(|d| d.lines().next()).unwrap_or_default();
        let mut detail: String = first_line.chars().take(PREVIEW_CHARS).collect();
        if first_line.chars().count() > PREVIEW_CHARS {
            detail.push('…');
        }
        ExecutionRow {
            id: e.id,
            job: e.job.to_string(),
            status: e.status.as_str(),
            scheduled: instant(e.scheduled_at),
            scheduled_relative: relative(e.scheduled_at, now),
            attempt: e.attempt,
            trigger: e.trigger.as_str(),
            node: e.node.as_ref().map(ToString::to_string).unwrap_or_default(),
            took,
            detail,
        }
    }
}

/// A batch in a table.
pub(crate) struct BatchRow {
    pub id: i64,
    pub job: String,
    pub state: &'static str,
    pub strategy: String,
    pub created: String,
    pub finished: String,
    pub failure: String,
}

impl BatchRow {
    pub fn new(batch: &BatchJob) -> Self {
        BatchRow {
            id: batch.id,
            job: batch.name.to_string(),
            state: batch.state.as_str(),
            strategy: match batch.stealing {
                true => format!("{} with stealing", batch.strategy),
                false => batch.strategy.to_string(),
            },
            created: instant(batch.created_at),
            finished: batch.finished_at.map(instant).unwrap_or_default(),
            failure: batch.failure.clone().unwrap_or_default(),
        }
    }
}
