//! Fencing tokens of node incarnations and partition claims, from the cluster's counter row.

use baton_core::{Error, ErrorKind, FencingToken};
use sqlx::MySqlConnection;

use crate::queries::CLUSTER_TOKENS_DRAW;
use crate::tx::Failure;

/// Issues the next `count` tokens, in increasing order, each greater than every token issued
/// before: one statement, which locks the counter until the transaction ends (so a transaction
/// draws its tokens after its other row locks).
pub(super) async fn draw(
    conn: &mut MySqlConnection,
    count: usize,
) -> Result<Vec<FencingToken>, Failure> {
    let n = i64::try_from(count).map_err(|_| exhausted())?;
    let done = sqlx::query(CLUSTER_TOKENS_DRAW).bind(n).bind(n).execute(conn).await?;
    let last = i64::try_from(done.last_insert_id()).map_err(|_| exhausted())?;
    let first = last - n + 1;
    Ok((first..=last).map(FencingToken::from_store).collect::<baton_core::Result<_>>()?)
}

/// Issues one token, as [`draw`] does.
pub(super) async fn draw_one(conn: &mut MySqlConnection) -> Result<FencingToken, Failure> {
    draw(conn, 1).await?.pop().ok_or_else(|| exhausted().into())
}

fn exhausted() -> Error {
    Error::new(ErrorKind::Internal, "MySQL store: the cluster's token counter is exhausted")
}
