//! The PostgreSQL stores' connections ([`baton_core::connections`]), lent out one operation at
//! a time, and the one-statement operations on them.

use std::time::Duration;

use baton_core::connections::{self, Lent};
use baton_core::{ErrorKind, Result};
use sqlx::postgres::{PgArguments, PgConnectOptions, PgRow};
use sqlx::{ConnectOptions, Postgres};

use crate::error::{kind_of, query_error};

/// A statement with its bound arguments.
pub(crate) type PgQuery<'q> = sqlx::query::Query<'q, Postgres, PgArguments>;

/// Up to `size` connections to one server, opened on demand.
#[derive(Clone)]
pub(crate) struct Connections(connections::Connections<Postgres>);

impl Connections {
    /// At most `size` connections; a borrower waits at most `wait` for one to be free and
    /// again at most `wait` for a new one to open.
    pub(crate) fn new(options: PgConnectOptions, size: usize, wait: Duration) -> Self {
        let open: connections::Open<Postgres> = Box::new(move || {
            let options = options.clone();
            Box::pin(async move { options.connect().await })
        });
        let usable_after = |err: &sqlx::Error| kind_of(err) != ErrorKind::Unavailable;
        Connections(connections::Connections::new(size, wait, open, usable_after))
    }

    /// Borrows an idle connection, or opens one when none is idle.
    pub(crate) async fn get(&self) -> std::result::Result<Lent<Postgres>, sqlx::Error> {
        self.0.get().await
    }

    /// Runs one statement on a borrowed connection and answers its row, if any; `context`
    /// names the operation in the error.
    pub(crate) async fn fetch_optional(
        &self,
        query: PgQuery<'_>,
        context: impl Fn() -> String + Send,
    ) -> Result<Option<PgRow>> {
        let mut conn = self.get().await.map_err(|err| query_error(context(), err))?;
        let answer = query.fetch_optional(&mut *conn).await;
        conn.finish(answer).map_err(|err| query_error(context(), err))
    }

    /// Runs one statement on a borrowed connection and answers all its rows; `context` names
    /// the operation in the error.
    pub(crate) async fn fetch_all(
        &self,
        query: PgQuery<'_>,
        context: impl Fn() -> String + Send,
    ) -> Result<Vec<PgRow>> {
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
