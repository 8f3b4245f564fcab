//! Wake-ups of idle nodes when partitions become pending, without `LISTEN`/`NOTIFY`.
//!
//! Every transaction that makes partitions pending for others to claim (a batch created,
//! partitions moved off a departed node) raises the `pending` counter of
//! `baton_cluster_counters` as its last write. An idle node's subscription watches that counter
//! with one statement per wait (`pending_wait.sql`): it reads the counter and, when unchanged,
//! blocks on this database's pending doorbell, a named lock, for at most [`WAIT`]. A backend that
//! rang once keeps the doorbell on a connection of its own; when it rings again it lets go of
//! it, which ends every wait at once, and takes it back. A ring from a backend that could not
//! take the doorbell (another one keeps it) reaches the watchers at their next read of the
//! counter, within [`WAIT`]. Ringing is best effort and never fails an operation.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use baton_core::cluster::PendingChanges;
use baton_core::{Error, ErrorKind, Result};
use sqlx::mysql::MySqlConnectOptions;
use sqlx::{ConnectOptions, MySqlConnection};
use tokio::sync::{Mutex, mpsc};

use crate::error::query_error;
use crate::queries::{
    PENDING_BELL_RING, PENDING_BELL_TAKE, PENDING_COUNT, PENDING_RAISE, PENDING_WAIT,
};
use crate::tx::Failure;

/// The longest one wait blocks: an idle subscription runs one statement per period.
const WAIT: Duration = Duration::from_secs(2);
/// How long a backend that rang waits to take its doorbell back from the waking watchers.
const RETAKE_SECONDS: i64 = 5;

/// Counts, inside the caller's transaction, that it made partitions pending.
pub(super) async fn raise(conn: &mut MySqlConnection) -> Result<(), Failure> {
    sqlx::query(PENDING_RAISE).execute(conn).await?;
    Ok(())
}

/// One backend's hold on the pending doorbell: a connection of its own, opened at its first
/// ring, and whether it keeps the doorbell.
#[derive(Clone)]
pub(crate) struct PendingBell {
    options: Arc<MySqlConnectOptions>,
    slot: Arc<Mutex<Slot>>,
}

#[derive(Default)]
struct Slot {
    conn: Option<MySqlConnection>,
    keeps: bool,
}

impl PendingBell {
    pub(crate) fn new(options: Arc<MySqlConnectOptions>) -> Self {
        PendingBell { options, slot: Arc::default() }
    }

    /// Rings after a commit that made partitions pending: lets go of the doorbell and takes it
    /// back when this backend keeps it, or tries to take it for the next ring.
    pub(super) async fn ring(&self) {
        let mut slot = self.slot.lock().await;
        if slot.conn.is_none() {
            match self.options.connect().await {
                Ok(conn) => slot.conn = Some(conn),
                Err(err) => {
                    tracing::debug!(%err, "no pending doorbell: cannot open its connection");
                    return;
                }
            }
        }
        let keeps = slot.keeps;
        let Some(conn) = slot.conn.as_mut() else { return };
        match ring_on(conn, keeps).await {
            Ok(taken) => slot.keeps = taken,
            Err(err) => {
                // Its session is gone, and the doorbell with it: that rang too.
                tracing::debug!(%err, "the pending doorbell connection broke");
                *slot = Slot::default();
            }
        }
    }
}

/// Rings (when `keeps`) and takes the doorbell; answers whether this session keeps it now.
async fn ring_on(
    conn: &mut MySqlConnection,
    keeps: bool,
) -> std::result::Result<bool, sqlx::Error> {
    let wait = if keeps {
        sqlx::query(PENDING_BELL_RING).execute(&mut *conn).await?;
        RETAKE_SECONDS
    } else {
        0
    };
    let taken: i64 = sqlx::query_scalar(PENDING_BELL_TAKE).bind(wait).fetch_one(conn).await?;
    Ok(taken == 1)
}

/// Subscribes to pending-partition wake-ups; the feed is live once this returns.
pub(super) async fn subscribe(options: &MySqlConnectOptions) -> Result<Box<dyn PendingChanges>> {
    let doing = "subscribing to pending partitions";
    let mut conn = options.connect().await.map_err(|err| query_error(doing, err))?;
    let seen: i64 = sqlx::query_scalar(PENDING_COUNT)
        .fetch_one(&mut conn)
        .await
        .map_err(|err| query_error(doing, err))?;
    let (wakes, received) = mpsc::channel(1);
    let task = tokio::spawn(watch(conn, seen, wakes));
    Ok(Box::new(Subscription { wakes: received, task, broken: false }))
}

/// Waits over and over, passing on each change of the counter as one wake-up (wake-ups not yet
/// taken are merged).
async fn watch(mut conn: MySqlConnection, mut seen: i64, wakes: mpsc::Sender<Result<()>>) {
    let seconds = i64::try_from(WAIT.as_secs()).unwrap_or(i64::MAX);
    loop {
        let read = sqlx::query_scalar::<_, i64>(PENDING_WAIT)
            .bind(seen)
            .bind(seconds)
            .bind(seconds)
            .fetch_one(&mut conn)
            .await;
        match read {
            Ok(pending) if pending == seen => {}
            Ok(pending) => {
                seen = pending;
                if let Err(mpsc::error::TrySendError::Closed(_)) = wakes.try_send(Ok(())) {
                    return;
                }
            }
            Err(err) => {
                let _ = wakes.send(Err(query_error("waiting for pending partitions", err))).await;
                return;
            }
        }
    }
}

struct Subscription {
    wakes: mpsc::Receiver<Result<()>>,
    task: tokio::task::JoinHandle<()>,
    broken: bool,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        // Aborting the watch drops its connection.
        self.task.abort();
    }
}

#[async_trait]
impl PendingChanges for Subscription {
    async fn next(&mut self) -> Result<()> {
        if self.broken {
            return Err(broken_feed());
        }
        match self.wakes.recv().await {
            Some(Ok(())) => Ok(()),
            Some(Err(err)) => {
                self.broken = true;
                Err(err)
            }
            None => {
                self.broken = true;
                Err(broken_feed())
            }
        }
    }
}

fn broken_feed() -> Error {
    Error::new(
        ErrorKind::Unavailable,
        "the pending-partition feed lost its MySQL connection: subscribe again",
    )
}
