//! Fencing tokens for executions, from a counter row of `baton_fencing_tokens`.

use baton_core::FencingToken;

use crate::connections::Connections;
use crate::queries::EXECUTION_TOKEN_ISSUE;
use crate::tx::Failure;

/// Issues `count` consecutive tokens, each greater than every execution token issued before, in
/// one statement committed on its own on a borrowed connection, outside the caller's
/// transaction: the counter row is locked for that statement only, so concurrent claims do not
/// queue on it until each commits. A caller draws while it holds the rows of the jobs whose
/// executions must be ordered (those that do not allow overlap), so a job's later claim gets
/// greater tokens; tokens of a transaction that then rolls back are skipped, never reused.
pub(super) async fn issue(
    connections: &Connections,
    count: usize,
) -> Result<Vec<FencingToken>, Failure> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let count = i64::try_from(count).unwrap_or(i64::MAX);
    let mut conn = connections.get().await?;
    let drawn =
        sqlx::query(EXECUTION_TOKEN_ISSUE).bind(count).bind(count).execute(&mut *conn).await;
    // A deadlock or lock wait fails the caller's transaction as a retryable failure would.
    let done = conn.finish(drawn)?;
    let last = i64::try_from(done.last_insert_id()).unwrap_or(i64::MAX);
    let tokens: baton_core::Result<Vec<FencingToken>> =
        (last - count + 1..=last).map(FencingToken::from_store).collect();
    Ok(tokens?)
}
