//! Doorbells: MySQL has no `LISTEN`/`NOTIFY`, so a lease's holder keeps a named lock
//! (`GET_LOCK`) on a connection of its own while it holds the lease, and lets go of it when it
//! releases; a refused contender blocks on the same named lock (see `changes`) and so learns of
//! the release at once, with one statement per wait instead of polling. A holder whose process
//! dies loses its connection and so rings too.
//!
//! Ringing is best effort: a doorbell that cannot be taken (its connection broke, a former
//! holder still has it) leaves waiters to their retry period, and never fails a lease operation.

use std::sync::Arc;

use baton_core::LeaseName;
use sqlx::mysql::MySqlConnectOptions;
use sqlx::{ConnectOptions, MySqlConnection};
use tokio::sync::Mutex;

use crate::queries::{BELL_RING, BELL_TAKE};

/// The connection holding the doorbells of the leases this backend's holders hold.
#[derive(Clone)]
pub(crate) struct Bells {
    options: Arc<MySqlConnectOptions>,
    conn: Arc<Mutex<Option<MySqlConnection>>>,
}

impl Bells {
    pub(crate) fn new(options: Arc<MySqlConnectOptions>) -> Self {
        Bells { options, conn: Arc::new(Mutex::new(None)) }
    }

    /// Takes the doorbell of a lease just granted.
    pub(crate) async fn take(&self, name: &LeaseName) {
        let query = sqlx::query_scalar::<_, i64>(BELL_TAKE).bind(name.as_str()).bind(name.as_str());
        let mut slot = self.conn.lock().await;
        if slot.is_none() {
            match self.options.connect().await {
                Ok(conn) => *slot = Some(conn),
                Err(err) => {
                    tracing::debug!(%name, %err, "no doorbell: cannot open its connection");
                    return;
                }
            }
        }
        let Some(conn) = slot.as_mut() else { return };
        match query.fetch_one(conn).await {
            Ok(1) => {}
            Ok(_) => tracing::debug!(%name, "no doorbell: another session still has it"),
            Err(err) => {
                tracing::debug!(%name, %err, "no doorbell: its connection broke");
                *slot = None;
            }
        }
    }

    /// Rings the doorbell of a lease released or lost (nothing when this backend does not
    /// have it).
    pub(crate) async fn ring(&self, name: &LeaseName) {
        let mut slot = self.conn.lock().await;
        let Some(conn) = slot.as_mut() else { return };
        let query = sqlx::query_scalar::<_, Option<i64>>(BELL_RING).bind(name.as_str());
        if let Err(err) = query.fetch_one(conn).await {
            // Its session is gone, and every doorbell it had rang with it.
            tracing::debug!(%name, %err, "the doorbell connection broke");
            *slot = None;
        }
    }
}
