//! The in-memory operator action log.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use crate::action::{Action, ActionListParams, ActionStore, RecordActionParams};
use crate::error::Result;
use crate::page::{Cursor, Page, check_page_size};
use crate::time::{Clock, SystemClock};

/// The reference [`ActionStore`]: actions in a vector, ids from 1.
pub struct MemoryActionStore {
    clock: Arc<dyn Clock>,
    actions: Mutex<Vec<Action>>,
}

impl Default for MemoryActionStore {
    fn default() -> Self {
        MemoryActionStore::with_clock(Arc::new(SystemClock))
    }
}

impl MemoryActionStore {
    /// An empty log whose times come from `clock`.
    pub fn with_clock(clock: Arc<dyn Clock>) -> Self {
        MemoryActionStore { clock, actions: Mutex::new(Vec::new()) }
    }
}

#[async_trait]
impl ActionStore for MemoryActionStore {
    async fn record_action(&self, params: RecordActionParams) -> Result<Action> {
        params.check()?;
        let mut actions = self.actions.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let action = Action {
            id: actions.len() as i64 + 1,
            at: self.clock.now(),
            actor: params.actor,
            action: params.action,
            target: params.target,
            detail: params.detail,
        };
        actions.push(action.clone());
        Ok(action)
    }

    async fn action_list(&self, params: ActionListParams) -> Result<Page<Action>> {
        let limit = check_page_size(params.limit)? as usize;
        let after = params.after.map_or(0, Cursor::last_id);
        let actions = self.actions.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let items: Vec<Action> =
            actions.iter().filter(|a| a.id > after).take(limit + 1).cloned().collect();
        Ok(Page::from_fetched(items, limit as u32, |item| item.id))
    }
}
