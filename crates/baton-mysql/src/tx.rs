//! Write transactions that commit once and are run again whole when the server rolled them
//! back to break a deadlock or a lock wait. Every write of the job and cluster stores goes
//! through [`transaction!`].
//!
//! A transaction's body runs on a fresh transaction each attempt. When a statement fails with
//! a deadlock (error 1213: InnoDB rolled the whole transaction back) or a lock wait timeout
//! (error 1205: the statement was rolled back, and the rollback here ends the rest), nothing
//! of the attempt was committed, so it runs again, a bounded number of times. Any other
//! failure, and above all one while committing (a lost connection then leaves the outcome
//! unknown), is reported as it is and never retried.

use std::time::Duration;

use baton_core::{Error, Result};
use sqlx::{MySql, Transaction};

use crate::error::{number, query_error};

/// How many times a transaction runs at most before its conflict is reported.
const ATTEMPTS: u32 = 10;

/// Why a transaction's body stopped.
#[derive(Debug)]
pub(crate) enum Failure {
    /// A statement failed; run again when the server rolled the transaction back (1213, 1205).
    Sql(sqlx::Error),
    /// A statement lost a race that another attempt decides differently (a first insert of a
    /// key that a concurrent transaction inserted too): run again.
    Again(sqlx::Error),
    /// The body refused the operation (not found, invalid input); rolled back, never retried.
    Refused(Error),
}

impl From<sqlx::Error> for Failure {
    fn from(err: sqlx::Error) -> Self {
        Failure::Sql(err)
    }
}

impl From<Error> for Failure {
    fn from(err: Error) -> Self {
        Failure::Refused(err)
    }
}

impl Failure {
    /// Whether running the transaction again may succeed.
    fn retryable(&self) -> bool {
        match self {
            Failure::Sql(err) => matches!(number(err), Some(1213 | 1205)),
            Failure::Again(_) => true,
            Failure::Refused(_) => false,
        }
    }

    /// The error to report, saying what the transaction was `doing`.
    fn into_error(self, doing: &str) -> Error {
        match self {
            Failure::Sql(err) | Failure::Again(err) => query_error(doing, err),
            Failure::Refused(err) => err,
        }
    }
}

/// A short pause before another attempt, longer each time, so that the transactions that
/// collided do not collide again at once.
fn backoff(attempt: u32) -> Duration {
    let spread = u64::from(std::process::id() ^ attempt.wrapping_mul(0x9e37_79b9)) % 5;
    Duration::from_millis(u64::from(attempt) * 2 + spread)
}

/// What to do after one attempt of a transaction.
pub(crate) enum Step<T> {
    /// The transaction is over: committed with this value, or failed.
    Done(Result<T>),
    /// The attempt was rolled back and may succeed again: run it again.
    Again,
}

/// Ends one attempt of a transaction: commits it when its body succeeded, rolls it back
/// otherwise, and tells whether to run it again (after a pause).
pub(crate) async fn settle<T>(
    tx: Transaction<'static, MySql>,
    outcome: std::result::Result<T, Failure>,
    doing: &str,
    attempt: u32,
) -> Step<T> {
    let failure = match outcome {
        Ok(value) => {
            let committed = tx.commit().await.map_err(|err| query_error(doing, err));
            return Step::Done(committed.map(|()| value));
        }
        Err(failure) => failure,
    };
    if let Err(err) = tx.rollback().await {
        return Step::Done(Err(query_error(doing, err)));
    }
    if attempt >= ATTEMPTS || !failure.retryable() {
        return Step::Done(Err(failure.into_error(doing)));
    }
    tracing::debug!(?failure, attempt, "{doing}: rolled back, running again");
    tokio::time::sleep(backoff(attempt)).await;
    Step::Again
}

/// Runs a body in a transaction of `pool` and commits it once, running it again (bounded)
/// when the server rolled it back or the body lost a race; evaluates to
/// `baton_core::Result<T>`.
///
/// `transaction!(pool, doing, |conn| body)`: `body` is a future of `Result<T, Failure>` that
/// may use `conn: &mut MySqlConnection`, the open transaction, and is built afresh for each
/// attempt; it must not end the transaction (`Ok` commits, `Err` rolls back; a body that only
/// locked and read rows commits too, which costs what a rollback would). `doing` (a `&str`)
/// says what for, in errors.
///
/// A macro rather than an `async fn` taking an async closure: the future of a closure that
/// borrows the connection cannot be shown to be `Send` for every lifetime of that borrow,
/// which the stores' `async_trait` methods require; expanded in place, the body is an
/// ordinary future of the calling function.
macro_rules! transaction {
    ($pool:expr, $doing:expr, |$conn:ident| $body:expr) => {{
        let mut attempt = 1;
        loop {
            let mut tx = match $pool.begin().await {
                Ok(tx) => tx,
                Err(err) => break Err($crate::error::query_error($doing, err)),
            };
            let outcome = {
                let $conn: &mut sqlx::MySqlConnection = &mut tx;
                $body.await
            };
            match $crate::tx::settle(tx, outcome, $doing, attempt).await {
                $crate::tx::Step::Done(result) => break result,
                $crate::tx::Step::Again => attempt += 1,
            }
        }
    }};
}

pub(crate) use transaction;
