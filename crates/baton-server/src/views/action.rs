//! The log of operators' actions.

use baton::core::action::Action;
use serde::Serialize;

use super::instant;

/// One recorded operator action, such as a job paused through the API.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ActionView {
    /// Position in the log.
    pub id: i64,
    /// When, on the store's clock.
    pub at: String,
    /// Who asked.
    pub actor: String,
    /// What was done, such as `job.pause`.
    pub action: String,
    /// What it was done to, such as `job/nightly-report`.
    pub target: String,
    /// Where the request came from and what it changed.
    pub detail: Option<String>,
}

impl From<&Action> for ActionView {
    fn from(action: &Action) -> Self {
        ActionView {
            id: action.id,
            at: instant(action.at),
            actor: action.actor.clone(),
            action: action.action.clone(),
            target: action.target.clone(),
            detail: action.detail.clone(),
        }
    }
}
