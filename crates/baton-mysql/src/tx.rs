//! Write transactions that commit once and are retried whole when the server rolled them back
//! to break a deadlock or a lock wait.
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

/// How many times a transaction runs at most before its deadlock is reported.
const ATTEMPTS: u32 = 10;

/// Why a transaction's body stopped.
#[derive(Debug)]
pub(crate) enum Failure {
    /// A statement failed; retried when the server rolled the transaction back.
    Sql(sqlx::Error),
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

/// Whether the server rolled back what the transaction did, so that running it again is safe.
fn rolled_back(err: &sqlx::Error) -> bool {
    matches!(number(err), Some(1213 | 1205))
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
    /// The server rolled the attempt back: run it again.
    Again,
}

/// Ends one attempt of a transaction: commits it when its body succeeded, rolls it back
/// otherwise, and tells whether to run it again.
pub(crate) async fn settle<T>(
    tx: Transaction<'static, MySql>,
    outcome: std::result::Result<T, Failure>,
    doing: &str,
    attempt: u32,
) -> Step<T> {
    let rollback = async |tx: Transaction<'static, MySql>| {
        tx.rollback().await.map_err(|err| query_error(doing, err))
    };
    match outcome {
        Ok(value) => {
            Step::Done(tx.commit().await.map(|()| value).map_err(|err| query_error(doing, err)))
        }
        Err(Failure::Refused(err)) => Step::Done(rollback(tx).await.and(Err(err))),
        Err(Failure::Sql(err)) if rolled_back(&err) && attempt < ATTEMPTS => {
            tracing::debug!(%err, attempt, "{doing}: rolled back by the server, running again");
            if let Err(err) = rollback(tx).await {
                return Step::Done(Err(err));
            }
            tokio::time::sleep(backoff(attempt)).await;
            Step::Again
        }
        Err(Failure::Sql(err)) => Step::Done(Err(query_error(doing, err))),
    }
}

/// Runs a body in a transaction of `pool` and commits it once, running it again (bounded)
/// when the server rolled it back; evaluates to `baton_core::Result<T>`.
///
/// `transaction!(pool, doing, |conn| body)`: `body` is a future of
/// `Result<T, Failure>` that may use `conn: &mut MySqlConnection`, the open transaction, and
/// is built afresh for each attempt; `doing` (a `&str`) says what for, in errors.
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
