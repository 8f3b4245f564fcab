//! Statements run inside one lease write transaction, and the transaction's boundaries.
//!
//! Every write transaction first takes the writers' turn ([`WriteGate`]), then begins with
//! `BEGIN IMMEDIATE`: that takes the database's write lock up front, waiting up to the busy
//! timeout for a writer outside baton to finish. A deferred `BEGIN` would instead fail at once
//! with `SQLITE_BUSY` when its first write finds the lock taken.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use baton_core::{
    ChangeReason, Error, ErrorKind, FencingToken, Lease, LeaseName, Result, StoreTime,
};
use sqlx::{Sqlite, SqliteConnection, SqlitePool, Transaction};
use tokio::sync::{Mutex, OwnedMutexGuard};

use crate::backend::BUSY_TIMEOUT;
use crate::error::from_sqlx;
use crate::row::{LeaseRow, ttl_millis};
use crate::turn::{WriteGate, WriteTurn};

/// The write side of a database: its write connection, the queue of this process's writers and
/// the writers' turn shared with other processes.
#[derive(Debug, Clone)]
pub(crate) struct Writer {
    pool: SqlitePool,
    queue: Arc<Mutex<()>>,
    gate: WriteGate,
}

impl Writer {
    /// Writes through `pool`, taking turns with other processes at `gate`.
    pub(crate) fn new(pool: SqlitePool, gate: WriteGate) -> Writer {
        Writer { pool, queue: Arc::new(Mutex::new(())), gate }
    }

    /// The write connection's pool, for closing it.
    pub(crate) fn pool(&self) -> &SqlitePool {
        &self.pool
    }
}

/// A write transaction holding the writers' turn and the database's write lock; both are
/// released when it commits or is dropped.
pub(crate) struct WriteTx {
    // Field order matters: the transaction ends before the turn is handed on, and the turn
    // before the next writer of this process starts waiting for it.
    tx: Transaction<'static, Sqlite>,
    _turn: WriteTurn,
    _queued: OwnedMutexGuard<()>,
}

impl Deref for WriteTx {
    type Target = SqliteConnection;

    fn deref(&self) -> &SqliteConnection {
        &self.tx
    }
}

impl DerefMut for WriteTx {
    fn deref_mut(&mut self) -> &mut SqliteConnection {
        &mut self.tx
    }
}

/// Starts a write transaction.
///
/// This process's writers queue in order, so only one of them at a time waits for the turn;
/// then the turn and the write lock are each waited for up to the busy timeout.
pub(crate) async fn begin(write: &Writer, doing: &str) -> Result<WriteTx> {
    let queued = write.queue.clone().lock_owned().await;
    let turn = write.gate.enter(BUSY_TIMEOUT, doing).await?;
    let tx = write.pool.begin_with("BEGIN IMMEDIATE").await.map_err(|err| from_sqlx(doing, err))?;
    Ok(WriteTx { tx, _turn: turn, _queued: queued })
}

/// Commits; an error here leaves the outcome unknown (`Timeout` or `Unavailable`).
pub(crate) async fn commit(tx: WriteTx, doing: &str) -> Result<()> {
    tx.tx.commit().await.map_err(|err| from_sqlx(doing, err))
}

/// Ends a transaction that wrote nothing.
pub(crate) async fn finish_unchanged(tx: WriteTx) {
    if let Err(err) = tx.tx.rollback().await {
        tracing::debug!(%err, "rolling back a read-only lease transaction failed");
    }
}

/// Reads one lease record.
pub(crate) async fn read_lease<'e, E>(executor: E, name: &LeaseName) -> Result<Option<Lease>>
where
    E: sqlx::Executor<'e, Database = Sqlite>,
{
    let row: Option<LeaseRow> = sqlx::query_as(include_str!("../queries/lease_get.sql"))
        .bind(name.as_str())
        .fetch_optional(executor)
        .await
        .map_err(|err| from_sqlx(&format!("reading lease {name}"), err))?;
    row.map(LeaseRow::into_lease).transpose()
}

/// Stores a lease record, inserting or replacing it.
pub(crate) async fn write_lease(conn: &mut SqliteConnection, lease: &Lease) -> Result<()> {
    sqlx::query(include_str!("../queries/lease_put.sql"))
        .bind(lease.name.as_str())
        .bind(lease.holder.as_ref().map(|holder| holder.as_str()))
        .bind(lease.token.to_store())
        .bind(lease.acquired_at.as_millis())
        .bind(lease.renewed_at.as_millis())
        .bind(lease.expires_at.as_millis())
        .bind(ttl_millis(lease.ttl))
        .bind(lease.released.map(|kind| kind.as_str()))
        .execute(conn)
        .await
        .map_err(|err| from_sqlx(&format!("writing lease {}", lease.name), err))?;
    Ok(())
}

/// The token the next grant would issue: above the counter and above the record's own token.
///
/// The counter is read here and advanced by [`advance_token`] only when the grant happens, both
/// inside the same transaction.
pub(crate) async fn next_token(
    conn: &mut SqliteConnection,
    current: Option<&Lease>,
) -> Result<FencingToken> {
    let counter: Option<i64> = sqlx::query_scalar(include_str!("../queries/token_last.sql"))
        .fetch_optional(conn)
        .await
        .map_err(|err| from_sqlx("reading the token counter", err))?;
    let last = counter.unwrap_or(0).max(current.map_or(0, |lease| lease.token.to_store()));
    let next = last.checked_add(1).ok_or_else(|| internal("the token counter is exhausted"))?;
    FencingToken::from_store(next)
}

/// Moves the token counter up to `token`, which must be above it.
pub(crate) async fn advance_token(conn: &mut SqliteConnection, token: FencingToken) -> Result<()> {
    let done = sqlx::query(include_str!("../queries/token_advance.sql"))
        .bind(token.to_store())
        .execute(conn)
        .await
        .map_err(|err| from_sqlx("advancing the token counter", err))?;
    if done.rows_affected() != 1 {
        return Err(internal("the token counter did not move up"));
    }
    Ok(())
}

/// Records a leader change for a grant.
pub(crate) async fn record_change(
    conn: &mut SqliteConnection,
    lease: &Lease,
    reason: ChangeReason,
    previous_end: Option<StoreTime>,
) -> Result<()> {
    let holder = lease.holder.as_ref().ok_or_else(|| internal("a granted lease has no holder"))?;
    sqlx::query(include_str!("../queries/leader_change_insert.sql"))
        .bind(lease.name.as_str())
        .bind(holder.as_str())
        .bind(lease.token.to_store())
        .bind(lease.acquired_at.as_millis())
        .bind(reason.as_str())
        .bind(previous_end.map(StoreTime::as_millis))
        .execute(conn)
        .await
        .map_err(|err| from_sqlx(&format!("recording the leader change of {}", lease.name), err))?;
    Ok(())
}

fn internal(message: &str) -> Error {
    Error::new(ErrorKind::Internal, format!("SQLite store: {message}"))
}
