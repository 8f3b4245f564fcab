//! Fencing tokens of node incarnations and partition claims, from the counter row that lease
//! and execution tokens come from.

use baton_core::{Error, ErrorKind, FencingToken, Result};
use sqlx::SqliteConnection;

use crate::tx;

/// Reserves the next `count` tokens, in increasing order, each greater than every token the
/// store issued before: the counter is read, then moved up past the last one, inside the
/// caller's write transaction (two statements; none for `count == 0`).
pub(super) async fn reserve(
    conn: &mut SqliteConnection,
    count: usize,
) -> Result<Vec<FencingToken>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let first = tx::next_token(conn, None).await?.to_store();
    let extra = i64::try_from(count - 1).map_err(|_| exhausted())?;
    let last = first.checked_add(extra).ok_or_else(exhausted)?;
    let tokens = (first..=last).map(FencingToken::from_store).collect::<Result<Vec<_>>>()?;
    tx::advance_token(conn, FencingToken::from_store(last)?).await?;
    Ok(tokens)
}

/// Reserves one token, as [`reserve`] does.
pub(super) async fn reserve_one(conn: &mut SqliteConnection) -> Result<FencingToken> {
    let first = tx::next_token(conn, None).await?;
    tx::advance_token(conn, first).await?;
    Ok(first)
}

fn exhausted() -> Error {
    Error::new(ErrorKind::Internal, "SQLite store: the token counter is exhausted")
}
