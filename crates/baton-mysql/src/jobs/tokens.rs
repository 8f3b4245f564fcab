//! Fencing tokens for executions, from a counter row of `baton_fencing_tokens`.

use baton_core::FencingToken;
use sqlx::MySqlConnection;

use crate::queries::EXECUTION_TOKEN_ISSUE;
use crate::tx::Failure;

/// Issues `count` consecutive tokens, each greater than every execution token issued before,
/// in one statement inside the caller's transaction, which keeps the counter locked until it
/// ends.
pub(super) async fn issue(
    conn: &mut MySqlConnection,
    count: usize,
) -> Result<Vec<FencingToken>, Failure> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let count = i64::try_from(count).unwrap_or(i64::MAX);
    let done = sqlx::query(EXECUTION_TOKEN_ISSUE).bind(count).bind(count).execute(conn).await?;
    let last = i64::try_from(done.last_insert_id()).unwrap_or(i64::MAX);
    let tokens: baton_core::Result<Vec<FencingToken>> =
        (last - count + 1..=last).map(FencingToken::from_store).collect();
    Ok(tokens?)
}
