//! The MySQL lease store's connections ([`baton_core::connections`]), lent out one operation
//! at a time, and the one-statement operations on them.

use std::sync::Arc;
use std::time::Duration;

use baton_core::connections::{self, Lent};
use baton_core::{ErrorKind, Result};
use sqlx::mysql::{MySqlArguments, MySqlConnectOptions, MySqlQueryResult, MySqlRow};
use sqlx::{ConnectOptions, Executor, MySql};

use crate::error::{kind_of, query_error};

/// A statement with its bound arguments.
pub(crate) type MySqlQuery<'q> = sqlx::query::Query<'q, MySql, MySqlArguments>;

/// Up to `size` connections to one server, opened on demand.
#[derive(Clone)]
pub(crate) struct Connections(connections::Connections<MySql>);

impl Connections {
    /// At most `size` connections, each set up with `setup` when opened; a borrower waits at
    /// most `wait` for one to be free and again at most `wait` for a new one to open.
    pub(crate) fn new(
        options: Arc<MySqlConnectOptions>,
        setup: &'static str,
        size: usize,
        wait: Duration,
    ) -> Self {
        let open: connections::Open<MySql> = Box::new(move || {
            let options = options.clone();
            Box::pin(async move {
                let mut conn = options.connect().await?;
                conn.execute(setup).await?;
                Ok(conn)
            })
        });
        let usable_after = |err: &sqlx::Error| kind_of(err) != ErrorKind::Unavailable;
        Connections(connections::Connections::new(size, wait, open, usable_after))
    }

    /// Borrows an idle connection, or opens one when none is idle.
    pub(crate) async fn get(&self) -> std::result::Result<Lent<MySql>, sqlx::Error> {
        self.0.get().await
    }

    /// Runs one statement on a borrowed connection; `context` names the operation in the
    /// error.
    pub(crate) async fn execute(
        &self,
        query: MySqlQuery<'_>,
        context: impl Fn() -> String + Send,
    ) -> Result<MySqlQueryResult> {
        let mut conn = self.get().await.map_err(|err| query_error(context(), err))?;
        let answer = query.execute(&mut *conn).await;
        conn.finish(answer).map_err(|err| query_error(context(), err))
    }

    /// Runs one statement on a borrowed connection and answers its row, if any.
    pub(crate) async fn fetch_optional(
        &self,
        query: MySqlQuery<'_>,
        context: impl Fn() -> String + Send,
    ) -> Result<Option<MySqlRow>> {
        let mut conn = self.get().await.map_err(|err| query_error(context(), err))?;
        let answer = query.fetch_optional(&mut *conn).await;
        conn.finish(answer).map_err(|err| query_error(context(), err))
    }

    /// Runs one statement on a borrowed connection and answers all its rows.
    pub(crate) async fn fetch_all(
        &self,
        query: MySqlQuery<'_>,
        context: impl Fn() -> String + Send,
    ) -> Result<Vec<MySqlRow>> {
        let mut conn = self.get().await.map_err(|err| query_error(context(), err))?;
        let answer = query.fetch_all(&mut *conn).await;
        conn.finish(answer).map_err(|err| query_error(context(), err))
    }

    /// Refuses further borrowing and closes the idle connections; connections still lent out
    /// are closed as they come back.
    pub(crate) async fn close(&self) {
        self.0.close().await;
    }
}
