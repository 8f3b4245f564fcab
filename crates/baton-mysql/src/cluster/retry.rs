//! Write transactions that outlive lock conflicts. A deadlock (1213) or a lock wait timeout
//! (1205) met before COMMIT leaves nothing committed: the transaction is rolled back whole (the
//! server rolls back a deadlock victim, and dropping the transaction rolls back the rest after
//! a lock wait timeout) and run again from the start, a bounded number of times. An error at
//! COMMIT itself, whose outcome may be unknown, is never retried.

use std::future::Future;
use std::time::Duration;

use baton_core::{Error, Result};
use sqlx::{MySql, Transaction};

use crate::error::{number, query_error};

/// How many times one operation runs at most.
const MOST_TRIES: u32 = 8;

/// Why one run of a transaction ended early.
pub(super) enum Attempt {
    /// Rolled back whole by a lock conflict: run it again.
    Again(sqlx::Error),
    /// Failed for good.
    Failed(Error),
}

impl From<Error> for Attempt {
    fn from(err: Error) -> Self {
        Attempt::Failed(err)
    }
}

/// The outcome of one run of a transaction.
pub(super) type Tried<T> = std::result::Result<T, Attempt>;

/// Classifies a failed statement of a transaction that is doing `doing`.
pub(super) fn step(doing: &str) -> impl Fn(sqlx::Error) -> Attempt + '_ {
    move |err| match number(&err) {
        Some(1213 | 1205) => Attempt::Again(err),
        _ => Attempt::Failed(query_error(doing, err)),
    }
}

/// Runs `attempt` until it commits, fails for good, or has met lock conflicts
/// [`MOST_TRIES`] times, pausing a little longer after each.
pub(super) async fn retrying<T, F, Fut>(doing: &str, mut attempt: F) -> Result<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Tried<T>>,
{
    let mut tries = 1;
    loop {
        match attempt().await {
            Ok(done) => return Ok(done),
            Err(Attempt::Failed(err)) => return Err(err),
            Err(Attempt::Again(err)) if tries >= MOST_TRIES => return Err(query_error(doing, err)),
            Err(Attempt::Again(err)) => {
                tracing::debug!(%err, doing, tries, "lock conflict, running the transaction again");
                tokio::time::sleep(Duration::from_millis(1 << tries)).await;
                tries += 1;
            }
        }
    }
}

/// Commits; a failure here is final, since the commit may have happened.
pub(super) async fn commit(tx: Transaction<'_, MySql>, doing: &str) -> Tried<()> {
    tx.commit().await.map_err(|err| Attempt::Failed(query_error(doing, err)))
}

/// Ends a transaction that changed nothing.
pub(super) async fn finish_unchanged(tx: Transaction<'_, MySql>, doing: &str) -> Tried<()> {
    tx.rollback().await.map_err(step(doing))
}
