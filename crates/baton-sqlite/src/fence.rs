//! The fenced sink helper (invariant I4): reject a stale lease holder's writes in the same
//! transaction as the writes themselves.
//!
//! A fence row per protected resource (`baton_fences`) remembers the highest fencing token that
//! resource has accepted. Call [`check_and_bump`] first in the transaction that performs the
//! guarded writes, presenting the token of the lease under which the work runs: a token at least
//! the recorded one is accepted and recorded; a lower one means a newer holder has already
//! written, and the caller must roll back.
//!
//! ```no_run
//! # async fn example(pool: sqlx::SqlitePool, token: baton_core::FencingToken)
//! # -> Result<(), baton_sqlite::FenceError> {
//! use sqlx::Connection;
//!
//! let mut conn = pool.acquire().await.expect("connection");
//! let mut tx = conn.begin_with("BEGIN IMMEDIATE").await.expect("begin");
//! baton_sqlite::fence::check_and_bump(&mut tx, "ledger", token).await?;
//! // ... the guarded writes, on `tx` ...
//! tx.commit().await.expect("commit");
//! # Ok(())
//! # }
//! ```

use baton_core::{Error, FencingToken};
use sqlx::{Connection, SqliteConnection};

use crate::error::from_sqlx;

pub use baton_core::fence::FenceError;

/// Accepts `token` for `resource` if it is at least the highest token the resource has accepted,
/// recording it; refuses it with [`FenceError::Stale`] otherwise. An equal token is accepted, so
/// one holder may write many times under one token.
///
/// Runs one statement on `conn`, which must be inside the caller's own transaction, begun with
/// `BEGIN IMMEDIATE` through sqlx (`begin_with`), so that the check and the guarded writes
/// commit or roll back together; a connection outside a transaction is refused. The
/// `baton_fences` table is created by [`SqliteBackend::migrate`](crate::SqliteBackend::migrate).
pub async fn check_and_bump(
    conn: &mut SqliteConnection,
    resource: &str,
    token: FencingToken,
) -> Result<(), FenceError> {
    if !conn.is_in_transaction() {
        return Err(Error::invalid_input(format!(
            "fence check for resource {resource:?} outside a transaction: begin one with \
             BEGIN IMMEDIATE and run the guarded writes in it"
        ))
        .into());
    }
    let accepted: Option<i64> =
        sqlx::query_scalar(include_str!("../queries/fence_check_and_bump.sql"))
            .bind(resource)
            .bind(token.to_store())
            .fetch_optional(&mut *conn)
            .await
            .map_err(|err| from_sqlx(&format!("checking the fence of {resource:?}"), err))?;
    if accepted.is_some() {
        return Ok(());
    }
    let current: i64 = sqlx::query_scalar(include_str!("../queries/fence_get.sql"))
        .bind(resource)
        .fetch_one(&mut *conn)
        .await
        .map_err(|err| from_sqlx(&format!("reading the fence of {resource:?}"), err))?;
    Err(FenceError::Stale {
        resource: resource.to_string(),
        presented: token,
        current: FencingToken::from_store(current)?,
    })
}
