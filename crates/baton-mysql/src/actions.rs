//! The operator action log.

use async_trait::async_trait;
use baton_core::action::{Action, ActionListParams, ActionStore, RecordActionParams};
use baton_core::page::check_page_size;
use baton_core::{Cursor, Page, Result, StoreTime};
use sqlx::MySqlPool;

use crate::error::query_error;
use crate::lease::server_now;
use crate::queries::{ACTION_INSERT, ACTION_LIST};

/// Operator actions in `baton_actions`, stamped with the server's time.
///
/// Cheap to clone: clones share the connections. Obtain one from
/// [`MysqlBackend::actions`](crate::MysqlBackend::actions).
#[derive(Debug, Clone)]
pub struct MysqlActionStore {
    pool: MySqlPool,
}

impl MysqlActionStore {
    pub(crate) fn new(pool: MySqlPool) -> Self {
        MysqlActionStore { pool }
    }
}

#[derive(sqlx::FromRow)]
struct ActionRow {
    id: i64,
    at: i64,
    actor: String,
    action: String,
    target: String,
    detail: Option<String>,
}

impl From<ActionRow> for Action {
    fn from(row: ActionRow) -> Self {
        Action {
            id: row.id,
            at: StoreTime::from_millis(row.at),
            actor: row.actor,
            action: row.action,
            target: row.target,
            detail: row.detail,
        }
    }
}

#[async_trait]
impl ActionStore for MysqlActionStore {
    /// Reads the server's time and inserts the action with it: one statement commits
    /// (autocommit), and the record is built from what was inserted and its id.
    async fn record_action(&self, params: RecordActionParams) -> Result<Action> {
        params.check()?;
        let doing = format!("recording the action {} on {}", params.action, params.target);
        let failed = |err| query_error(&doing, err);
        let mut conn = self.pool.acquire().await.map_err(failed)?;
        let at = server_now(&mut conn).await.map_err(failed)?;
        let done = sqlx::query(ACTION_INSERT)
            .bind(at.as_millis())
            .bind(&params.actor)
            .bind(&params.action)
            .bind(&params.target)
            .bind(params.detail.as_deref())
            .execute(&mut *conn)
            .await
            .map_err(failed)?;
        let RecordActionParams { actor, action, target, detail } = params;
        let id = i64::try_from(done.last_insert_id()).unwrap_or(i64::MAX);
        Ok(Action { id, at, actor, action, target, detail })
    }

    async fn action_list(&self, params: ActionListParams) -> Result<Page<Action>> {
        let limit = check_page_size(params.limit)?;
        let rows: Vec<ActionRow> = sqlx::query_as(ACTION_LIST)
            .bind(params.after.map_or(0, Cursor::last_id))
            .bind(i64::from(limit) + 1)
            .fetch_all(&self.pool)
            .await
            .map_err(|err| query_error("reading the action log", err))?;
        let items: Vec<Action> = rows.into_iter().map(Action::from).collect();
        Ok(Page::from_fetched(items, limit, |action| action.id))
    }
}
