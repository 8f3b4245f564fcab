//! The dashboard's pictures, drawn on the server as small inline SVG: no script draws them
//! and nothing is loaded from elsewhere. Colours come from the stylesheet by class (an
//! outcome's class is its status), except each holder's, written on its shapes.

mod axes;
mod fires;
mod rate;
mod scale;
mod svg;
mod terms;

pub(crate) use fires::fires;
pub(crate) use rate::{hour_start, per_minute};
pub(crate) use terms::{strip, terms};

/// Records for the pictures' tests.
#[cfg(test)]
pub(crate) mod sample {
    use baton::StoreTime;
    use baton::core::schedule::JobName;
    use baton::core::{Execution, ExecutionStatus, FireKey, Trigger};

    /// Execution `id` of job `j` in `status`, scheduled, started and finished at the given
    /// milliseconds.
    pub fn execution(
        id: i64,
        status: ExecutionStatus,
        scheduled: i64,
        started: Option<i64>,
        finished: Option<i64>,
    ) -> Execution {
        let at = StoreTime::from_millis(scheduled);
        Execution {
            id,
            job: JobName::new("j").unwrap(),
            fire_key: FireKey::at(at),
            scheduled_at: at,
            attempt: 1,
            trigger: Trigger::Schedule,
            status,
            due_at: at,
            node: None,
            token: None,
            created_at: at,
            started_at: started.map(StoreTime::from_millis),
            heartbeat_at: None,
            finished_at: finished.map(StoreTime::from_millis),
            detail: None,
            covers_through: None,
            covers_count: 1,
            cancel_requested: false,
        }
    }
}
