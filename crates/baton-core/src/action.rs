//! The operator action log: who asked for what (trigger, pause, force-release, ...) and when.

use async_trait::async_trait;

use crate::error::{Error, Result};
use crate::page::{Cursor, Page};
use crate::time::StoreTime;

/// The longest actor, action or target accepted, in bytes.
pub const MAX_ACTION_FIELD_BYTES: usize = 200;

/// The longest detail accepted, in bytes.
pub const MAX_ACTION_DETAIL_BYTES: usize = 2000;

/// One recorded operator action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    /// The store's id; listings page by it.
    pub id: i64,
    /// When it was recorded (store clock).
    pub at: StoreTime,
    /// Who asked, as the caller identified itself (such as `api` or an operator's name).
    pub actor: String,
    /// What was done, such as `job.pause` or `lease.force_release`.
    pub action: String,
    /// What it was done to: a job, lease or execution name or id.
    pub target: String,
    /// Anything else worth keeping: the caller's address, the outcome.
    pub detail: Option<String>,
}

/// Record one action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordActionParams {
    /// Who asked.
    pub actor: String,
    /// What was done.
    pub action: String,
    /// What it was done to.
    pub target: String,
    /// Anything else worth keeping.
    pub detail: Option<String>,
}

impl RecordActionParams {
    /// Checks every field: actor, action and target are 1 to [`MAX_ACTION_FIELD_BYTES`] bytes
    /// of printable text, the detail at most [`MAX_ACTION_DETAIL_BYTES`].
    pub fn check(&self) -> Result<()> {
        for (what, text) in
            [("actor", &self.actor), ("action", &self.action), ("target", &self.target)]
        {
            let printable = text.chars().all(|c| !c.is_control());
            if text.is_empty() || text.len() > MAX_ACTION_FIELD_BYTES || !printable {
                return Err(Error::invalid_input(format!(
                    "invalid action {what} {text:?}: expected 1 to {MAX_ACTION_FIELD_BYTES} bytes \
                     of printable characters"
                )));
            }
        }
        match &self.detail {
            Some(detail) if detail.len() > MAX_ACTION_DETAIL_BYTES => {
                Err(Error::invalid_input(format!(
                    "invalid action detail of {} bytes: expected at most {MAX_ACTION_DETAIL_BYTES}",
                    detail.len()
                )))
            }
            _ => Ok(()),
        }
    }
}

/// List recorded actions, oldest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActionListParams {
    /// Start after this cursor.
    pub after: Option<Cursor>,
    /// At most this many (1 to [`MAX_PAGE_SIZE`](crate::page::MAX_PAGE_SIZE)).
    pub limit: u32,
}

impl Default for ActionListParams {
    fn default() -> Self {
        ActionListParams { after: None, limit: 100 }
    }
}

/// A store of operator actions (I8: everything on record).
#[async_trait]
pub trait ActionStore: Send + Sync + 'static {
    /// Records an action at the store's current time.
    async fn record_action(&self, params: RecordActionParams) -> Result<Action>;

    /// Lists recorded actions by id.
    async fn action_list(&self, params: ActionListParams) -> Result<Page<Action>>;
}
