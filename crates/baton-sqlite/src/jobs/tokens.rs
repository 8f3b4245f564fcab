//! Fencing tokens for executions, from the counter row the lease store uses.

use baton_core::{Error, ErrorKind, FencingToken, Result};
use sqlx::SqliteConnection;

use crate::tx;

/// Issues `count` consecutive tokens, each greater than every token issued before for a lease
/// or an execution: two statements (read the counter, move it up past the last one), inside
/// the caller's write transaction.
pub(super) async fn issue(conn: &mut SqliteConnection, count: usize) -> Result<Vec<FencingToken>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let first = tx::next_token(conn, None).await?.to_store();
    let tokens = (0..count)
        .map(|offset| {
            i64::try_from(offset)
                .ok()
                .and_then(|offset| first.checked_add(offset))
                .ok_or_else(exhausted)
                .and_then(FencingToken::from_store)
        })
        .collect::<Result<Vec<_>>>()?;
    if let Some(last) = tokens.last() {
        tx::advance_token(conn, *last).await?;
    }
    Ok(tokens)
}

fn exhausted() -> Error {
    Error::new(ErrorKind::Internal, "SQLite store: the token counter is exhausted")
}
