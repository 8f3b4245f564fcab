//! The operator action log.

use async_trait::async_trait;
use baton_core::action::{Action, ActionListParams, ActionStore, RecordActionParams};
use baton_core::page::check_page_size;
use baton_core::{Cursor, Page, Result};
use sqlx::postgres::PgRow;

use crate::connections::Connections;
use crate::queries::{ACTION_INSERT, ACTION_LIST};
use crate::row;

/// Operator actions in PostgreSQL, timed by the server's clock.
#[derive(Clone)]
pub struct PostgresActionStore {
    connections: Connections,
}

impl PostgresActionStore {
    pub(crate) fn new(connections: Connections) -> Self {
        PostgresActionStore { connections }
    }
}

impl std::fmt::Debug for PostgresActionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresActionStore").finish_non_exhaustive()
    }
}

fn action(found: &PgRow) -> Result<Action> {
    Ok(Action {
        id: row::id(found, "id")?,
        at: row::required_instant(found, "at")?,
        actor: row::text(found, "actor")?,
        action: row::text(found, "action")?,
        target: row::text(found, "target")?,
        detail: row::optional_text(found, "detail")?,
    })
}

#[async_trait]
impl ActionStore for PostgresActionStore {
    async fn record_action(&self, params: RecordActionParams) -> Result<Action> {
        params.check()?;
        let query = sqlx::query(ACTION_INSERT)
            .bind(&params.actor)
            .bind(&params.action)
            .bind(&params.target)
            .bind(params.detail.as_deref());
        let rows = self
            .connections
            .fetch_all(query, || {
                format!("recording the action {} on {}", params.action, params.target)
            })
            .await?;
        rows.first().map(action).transpose()?.ok_or_else(|| {
            baton_core::Error::new(
                baton_core::ErrorKind::Internal,
                "recording an action answered no row".to_owned(),
            )
        })
    }

    async fn action_list(&self, params: ActionListParams) -> Result<Page<Action>> {
        let limit = check_page_size(params.limit)?;
        let query = sqlx::query(ACTION_LIST)
            .bind(params.after.map_or(0, Cursor::last_id))
            .bind(i64::from(limit) + 1);
        let rows =
            self.connections.fetch_all(query, || "reading the action log".to_owned()).await?;
        let items = rows.iter().map(action).collect::<Result<Vec<_>>>()?;
        Ok(Page::from_fetched(items, limit, |action| action.id))
    }
}
