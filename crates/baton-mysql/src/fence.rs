//! The fenced sink helper (invariant I4): reject a stale lease holder's writes inside the
//! writer's own transaction.
//!
//! Each protected resource has a fence row in `baton_fences` holding the highest token it has
//! accepted. A writer calls [`check_and_bump`] in the same transaction as its writes: a token at
//! least as high as the fence raises the fence and keeps its row locked until the transaction
//! ends, so no older holder can slip in between; a lower token means a newer holder has already
//! written, and the writer must roll back.
//!
//! ```no_run
//! # use baton_core::{Error, ErrorKind, FencingToken};
//! # async fn write(pool: &sqlx::MySqlPool, token: FencingToken) -> Result<(), Error> {
//! # let map = |e: sqlx::Error| Error::new(ErrorKind::Unavailable, e.to_string());
//! let mut tx = pool.begin().await.map_err(map)?;
//! // A stale token returns early here, and dropping `tx` rolls the transaction back.
//! baton_mysql::check_and_bump(&mut tx, "ledger", token).await?;
//! // ... the caller's writes, in the same transaction ...
//! tx.commit().await.map_err(map)?;
//! # Ok(())
//! # }
//! ```

use baton_core::{Error, ErrorKind, FencingToken};
use sqlx::MySqlConnection;

use crate::error::query_error;
use crate::queries::{FENCE_CURRENT, FENCE_RAISE};

pub use baton_core::fence::FenceError;

/// Checks `token` against the fence of `resource` and raises the fence to it, on `conn`, which
/// should be the caller's open transaction (`&mut *tx`): one statement raises the fence unless
/// it is higher and locks its row, a second reads it back in the same transaction (MySQL has no
/// `UPDATE … RETURNING`, and its affected-row count does not tell a raise from a refusal).
///
/// A token equal to the fence is accepted, so one holder may write many times. A lower token
/// returns [`FenceError::Stale`]; the caller must then roll back (dropping the transaction
/// does). Requires the schema created by
/// [`MysqlBackend::migrate`](crate::MysqlBackend::migrate).
pub async fn check_and_bump(
    conn: &mut MySqlConnection,
    resource: &str,
    token: FencingToken,
) -> Result<(), FenceError> {
    let checking = || format!("checking the fence of {resource}");
    sqlx::query(FENCE_RAISE)
        .bind(resource)
        .bind(token.to_store())
        .bind(token.to_store())
        .execute(&mut *conn)
        .await
        .map_err(|err| query_error(checking(), err))?;
    let current: Option<i64> = sqlx::query_scalar(FENCE_CURRENT)
        .bind(resource)
        .fetch_optional(&mut *conn)
        .await
        .map_err(|err| query_error(checking(), err))?;
    let current = current.ok_or_else(|| {
        Error::new(ErrorKind::Internal, format!("the fence of {resource} vanished while locked"))
    })?;
    if current == token.to_store() {
        return Ok(());
    }
    Err(FenceError::Stale {
        resource: resource.to_string(),
        presented: token,
        current: FencingToken::from_store(current)?,
    })
}
