//! A small set of connections lent out one operation at a time.
//!
//! sqlx's `Pool` checks every connection as it comes back with a round trip to the server (a
//! `Sync` message and its answer), so a one-statement lease operation through it costs two
//! round trips and two wake-ups of the server process. baton's operations are single short
//! statements, so it keeps its own list instead: a connection goes back to the idle list only
//! when the statement that borrowed it finished with an answer from the server; one whose
//! borrower was cancelled mid-statement (a deadline) or whose socket broke is dropped, and the
//! next borrower opens a fresh one.

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use baton_core::{ErrorKind, Result};
use sqlx::postgres::{PgArguments, PgConnectOptions, PgRow};
use sqlx::{ConnectOptions, Connection, PgConnection, Postgres};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, TryAcquireError};

use crate::error::{kind_of, query_error};

/// A statement with its bound arguments.
pub(crate) type PgQuery<'q> = sqlx::query::Query<'q, Postgres, PgArguments>;

/// Up to `size` connections to one server, opened on demand.
#[derive(Clone)]
pub(crate) struct Connections {
    shared: Arc<Shared>,
}

struct Shared {
    options: PgConnectOptions,
    idle: Mutex<Vec<PgConnection>>,
    permits: Arc<Semaphore>,
    wait: Duration,
    closed: AtomicBool,
}

impl Shared {
    fn idle(&self) -> MutexGuard<'_, Vec<PgConnection>> {
        self.idle.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Connections {
    /// At most `size` connections; a borrower waits at most `wait` for one to be free and
    /// again at most `wait` for a new one to open.
    pub(crate) fn new(options: PgConnectOptions, size: usize, wait: Duration) -> Self {
        let shared = Shared {
            options,
            idle: Mutex::new(Vec::with_capacity(size)),
            permits: Arc::new(Semaphore::new(size)),
            wait,
            closed: AtomicBool::new(false),
        };
        Connections { shared: Arc::new(shared) }
    }

    /// Borrows an idle connection, or opens one when none is idle.
    pub(crate) async fn get(&self) -> std::result::Result<Lent, sqlx::Error> {
        let shared = &self.shared;
        let permit = match shared.permits.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(TryAcquireError::Closed) => return Err(sqlx::Error::PoolClosed),
            // Only a borrower that has to wait arms a timer: registering one wakes the
            // runtime's timer driver, a context switch that a one-statement operation notices.
            Err(TryAcquireError::NoPermits) => {
                let waiting = shared.permits.clone().acquire_owned();
                match tokio::time::timeout(shared.wait, waiting).await {
                    Ok(Ok(permit)) => permit,
                    Ok(Err(_closed)) => return Err(sqlx::Error::PoolClosed),
                    Err(_elapsed) => return Err(sqlx::Error::PoolTimedOut),
                }
            }
        };
        let idle = shared.idle().pop();
        let conn = match idle {
            Some(conn) => conn,
            None => match tokio::time::timeout(shared.wait, shared.options.connect()).await {
                Ok(opened) => opened?,
                Err(_elapsed) => return Err(sqlx::Error::PoolTimedOut),
            },
        };
        Ok(Lent { conn: Some(conn), shared: self.shared.clone(), _permit: permit, reusable: false })
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
        self.shared.closed.store(true, Ordering::SeqCst);
        self.shared.permits.close();
        let idle = std::mem::take(&mut *self.shared.idle());
        for conn in idle {
            let _ = conn.close().await;
        }
    }
}

/// A borrowed connection; it returns to the idle list on drop only after [`Lent::finish`]
/// saw the server answer.
pub(crate) struct Lent {
    conn: Option<PgConnection>,
    shared: Arc<Shared>,
    _permit: OwnedSemaphorePermit,
    reusable: bool,
}

impl Lent {
    /// Passes an operation's result through, keeping the connection for reuse when the server
    /// answered (with rows, or with an error that leaves the session usable) and dropping it
    /// on any other error.
    pub(crate) fn finish<T>(
        mut self,
        result: std::result::Result<T, sqlx::Error>,
    ) -> std::result::Result<T, sqlx::Error> {
        self.reusable = match &result {
            Ok(_) => true,
            Err(err @ sqlx::Error::Database(_)) => kind_of(err) != ErrorKind::Unavailable,
            Err(_) => false,
        };
        result
    }
}

impl Deref for Lent {
    type Target = PgConnection;

    fn deref(&self) -> &PgConnection {
        self.conn.as_ref().expect("a lent connection is present until dropped")
    }
}

impl DerefMut for Lent {
    fn deref_mut(&mut self) -> &mut PgConnection {
        self.conn.as_mut().expect("a lent connection is present until dropped")
    }
}

impl Drop for Lent {
    fn drop(&mut self) {
        let Some(conn) = self.conn.take() else { return };
        if self.reusable && !self.shared.closed.load(Ordering::SeqCst) {
            self.shared.idle().push(conn);
        }
    }
}
