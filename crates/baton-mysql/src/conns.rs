//! The lease store's connections, kept open between operations and given back as they are.
//!
//! sqlx's pool pings every connection it takes back, one more round trip to the server per
//! operation: through it a renewal, one statement, cost the server two requests. A connection
//! lent here goes back to the idle list without one, once its operation has finished without an
//! error; one whose operation failed or was cancelled midway is dropped, since its session's
//! state is then unknown. As with the pool, at most [`MAX_OPEN`] are open at once, and one left
//! idle for [`IDLE_TIMEOUT`] is closed rather than lent.

use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sqlx::mysql::MySqlConnectOptions;
use sqlx::{ConnectOptions, Executor, MySqlConnection};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// How many connections the lease store has open at most; an operation beyond waits its turn.
const MAX_OPEN: usize = 8;
/// How long an idle connection is kept; older ones are closed (servers and proxies drop
/// connections idle for long, and a lease operation should not be the one to find out).
const IDLE_TIMEOUT: Duration = Duration::from_secs(600);

/// The connections of one backend's lease stores.
#[derive(Clone)]
pub(crate) struct Conns {
    options: Arc<MySqlConnectOptions>,
    setup: &'static str,
    wait: Duration,
    open: Arc<Semaphore>,
    idle: Arc<Mutex<Vec<(MySqlConnection, Instant)>>>,
}

/// A connection lent for one operation; dropping it closes it, [`Lent::give_back`] keeps it.
pub(crate) struct Lent {
    conn: Option<MySqlConnection>,
    idle: Arc<Mutex<Vec<(MySqlConnection, Instant)>>>,
    open: OwnedSemaphorePermit,
}

impl Conns {
    /// Connections to `options`, each set up with `setup` when opened; an operation waits at
    /// most `wait` for its turn or for a new connection.
    pub(crate) fn new(
        options: Arc<MySqlConnectOptions>,
        setup: &'static str,
        wait: Duration,
    ) -> Self {
        Conns {
            options,
            setup,
            wait,
            open: Arc::new(Semaphore::new(MAX_OPEN)),
            idle: Arc::default(),
        }
    }

    /// Lends the connection idle the shortest time, or opens one; fails once closed.
    pub(crate) async fn lend(&self) -> sqlx::Result<Lent> {
        let permit = tokio::time::timeout(self.wait, self.open.clone().acquire_owned())
            .await
            .map_err(|_| sqlx::Error::PoolTimedOut)?
            .map_err(|_| sqlx::Error::PoolClosed)?;
        let conn = match self.idle_one() {
            Some(conn) => conn,
            None => tokio::time::timeout(self.wait, self.open_one())
                .await
                .map_err(|_| sqlx::Error::PoolTimedOut)??,
        };
        Ok(Lent { conn: Some(conn), idle: self.idle.clone(), open: permit })
    }

    /// Closes the idle connections and lends no more; a connection lent meanwhile is closed
    /// when its operation ends.
    pub(crate) async fn close(&self) {
        self.open.close();
        let idle = std::mem::take(&mut *self.idle.lock().unwrap_or_else(|e| e.into_inner()));
        for (conn, _) in idle {
            let _ = sqlx::Connection::close(conn).await;
        }
    }

    fn idle_one(&self) -> Option<MySqlConnection> {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        // Connections idle too long are the oldest, at the front: they are dropped (closed).
        idle.retain(|(_, since)| since.elapsed() < IDLE_TIMEOUT);
        idle.pop().map(|(conn, _)| conn)
    }

    async fn open_one(&self) -> sqlx::Result<MySqlConnection> {
        let mut conn = self.options.connect().await?;
        conn.execute(self.setup).await?;
        Ok(conn)
    }
}

impl Lent {
    /// Keeps the connection for the next operation. Call it only once the operation finished
    /// without an error, its transaction (if any) committed or rolled back.
    pub(crate) fn give_back(mut self) {
        if self.open.semaphore().is_closed() {
            return;
        }
        if let Some(conn) = self.conn.take() {
            let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
            idle.push((conn, Instant::now()));
        }
    }
}

impl Deref for Lent {
    type Target = MySqlConnection;

    fn deref(&self) -> &MySqlConnection {
        self.conn.as_ref().expect("a lent connection is present until given back")
    }
}

impl DerefMut for Lent {
    fn deref_mut(&mut self) -> &mut MySqlConnection {
        self.conn.as_mut().expect("a lent connection is present until given back")
    }
}
