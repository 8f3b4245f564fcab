//! A small set of connections lent out one operation at a time, for the SQL stores.
//!
//! sqlx's `Pool` checks every connection as it comes back with a round trip to the server
//! (PostgreSQL: a `Sync` message and its answer; MySQL: `COM_PING`), so a one-statement lease
//! operation through it costs two round trips and two wake-ups of the server. baton's
//! operations are short statements, so the stores keep their own list instead: a connection
//! goes back to the idle list only when the operation that borrowed it finished with an answer
//! from the server; one whose borrower was cancelled mid-statement (a deadline) or whose socket
//! broke is dropped, and the next borrower opens a fresh one.

use std::future::Future;
use std::ops::{Deref, DerefMut};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use sqlx::{Connection, Database};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, TryAcquireError};

/// Opens one connection, set up for the store's statements.
pub type Open<DB> = Box<
    dyn Fn() -> Pin<Box<dyn Future<Output = sqlx::Result<<DB as Database>::Connection>> + Send>>
        + Send
        + Sync,
>;

/// Up to `size` connections to one server, opened on demand.
pub struct Connections<DB: Database> {
    shared: Arc<Shared<DB>>,
}

impl<DB: Database> Clone for Connections<DB> {
    fn clone(&self) -> Self {
        Connections { shared: self.shared.clone() }
    }
}

struct Shared<DB: Database> {
    open: Open<DB>,
    usable_after: fn(&sqlx::Error) -> bool,
    idle: Mutex<Vec<DB::Connection>>,
    permits: Arc<Semaphore>,
    wait: Duration,
    closed: AtomicBool,
}

impl<DB: Database> Shared<DB> {
    fn idle(&self) -> MutexGuard<'_, Vec<DB::Connection>> {
        self.idle.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl<DB: Database> Connections<DB> {
    /// At most `size` connections, each opened by `open`; a borrower waits at most `wait` for
    /// one to be free and again at most `wait` for a new one to open. A connection whose
    /// operation failed with a database error is kept when `usable_after` says the session
    /// survives that error.
    pub fn new(
        size: usize,
        wait: Duration,
        open: Open<DB>,
        usable_after: fn(&sqlx::Error) -> bool,
    ) -> Self {
        let shared = Shared {
            open,
            usable_after,
            idle: Mutex::new(Vec::with_capacity(size)),
            permits: Arc::new(Semaphore::new(size)),
            wait,
            closed: AtomicBool::new(false),
        };
        Connections { shared: Arc::new(shared) }
    }

    /// Borrows an idle connection, or opens one when none is idle.
    pub async fn get(&self) -> sqlx::Result<Lent<DB>> {
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
            None => match tokio::time::timeout(shared.wait, (shared.open)()).await {
                Ok(opened) => opened?,
                Err(_elapsed) => return Err(sqlx::Error::PoolTimedOut),
            },
        };
        Ok(Lent { conn: Some(conn), shared: self.shared.clone(), _permit: permit, reusable: false })
    }

    /// Refuses further borrowing and closes the idle connections; connections still lent out
    /// are closed as they come back.
    pub async fn close(&self) {
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
pub struct Lent<DB: Database> {
    conn: Option<DB::Connection>,
    shared: Arc<Shared<DB>>,
    _permit: OwnedSemaphorePermit,
    reusable: bool,
}

impl<DB: Database> Lent<DB> {
    /// Passes an operation's result through, keeping the connection for reuse when the server
    /// answered (with rows, or with an error that leaves the session usable) and dropping it
    /// on any other error.
    pub fn finish<T>(mut self, result: sqlx::Result<T>) -> sqlx::Result<T> {
        self.reusable = match &result {
            Ok(_) => true,
            Err(err @ sqlx::Error::Database(_)) => (self.shared.usable_after)(err),
            Err(_) => false,
        };
        result
    }

    /// Keeps the connection for reuse: its operation ended with the server's answer (a
    /// transaction committed or rolled back).
    pub fn keep(self) {
        let _ = self.finish(Ok(()));
    }
}

impl<DB: Database> Deref for Lent<DB> {
    type Target = DB::Connection;

    fn deref(&self) -> &DB::Connection {
        self.conn.as_ref().expect("a lent connection is present until dropped")
    }
}

impl<DB: Database> DerefMut for Lent<DB> {
    fn deref_mut(&mut self) -> &mut DB::Connection {
        self.conn.as_mut().expect("a lent connection is present until dropped")
    }
}

impl<DB: Database> Drop for Lent<DB> {
    fn drop(&mut self) {
        let Some(conn) = self.conn.take() else { return };
        if self.reusable && !self.shared.closed.load(Ordering::SeqCst) {
            self.shared.idle().push(conn);
        }
    }
}
