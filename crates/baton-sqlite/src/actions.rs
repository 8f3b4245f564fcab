//! The operator action log.

use async_trait::async_trait;
use baton_core::action::{Action, ActionListParams, ActionStore, RecordActionParams};
use baton_core::page::check_page_size;
use baton_core::time::{Clock, SystemClock};
use baton_core::{Cursor, Page, Result, StoreTime};
use sqlx::SqlitePool;

use crate::error::from_sqlx;
use crate::tx;
use crate::tx::Writer;

/// Operator actions in the SQLite file.
#[derive(Debug, Clone)]
pub struct SqliteActionStore {
    write: Writer,
    read: SqlitePool,
}

impl SqliteActionStore {
    pub(crate) fn new(write: Writer, read: SqlitePool) -> Self {
        SqliteActionStore { write, read }
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
impl ActionStore for SqliteActionStore {
    async fn record_action(&self, params: RecordActionParams) -> Result<Action> {
        params.check()?;
        let doing = format!("recording the action {} on {}", params.action, params.target);
        let mut tx = tx::begin(&self.write, &doing).await?;
        let row: ActionRow = sqlx::query_as(include_str!("../queries/action_insert.sql"))
            .bind(SystemClock.now().as_millis())
            .bind(&params.actor)
            .bind(&params.action)
            .bind(&params.target)
            .bind(params.detail.as_deref())
            .fetch_one(&mut *tx)
            .await
            .map_err(|err| from_sqlx(&doing, err))?;
        tx::commit(tx, &doing).await?;
        Ok(row.into())
    }

    async fn action_list(&self, params: ActionListParams) -> Result<Page<Action>> {
        let limit = check_page_size(params.limit)?;
        let rows: Vec<ActionRow> = sqlx::query_as(include_str!("../queries/action_list.sql"))
            .bind(params.after.map_or(0, Cursor::last_id))
            .bind(i64::from(limit) + 1)
            .fetch_all(&self.read)
            .await
            .map_err(|err| from_sqlx("reading the action log", err))?;
        let items: Vec<Action> = rows.into_iter().map(Action::from).collect();
        Ok(Page::from_fetched(items, limit, |action| action.id))
    }
}
