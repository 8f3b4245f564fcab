//! Reading the leader-change history with keyset pagination.

use baton_core::page::check_page_size;
use baton_core::{Cursor, HistoryParams, LeaderChange, Page, Result};
use sqlx::SqlitePool;

use crate::error::from_sqlx;
use crate::row::LeaderChangeRow;

/// One page of the history, oldest first: `id > cursor ORDER BY id LIMIT n + 1`, the extra row
/// telling whether another page follows.
pub(crate) async fn page(read: &SqlitePool, params: HistoryParams) -> Result<Page<LeaderChange>> {
    let limit = check_page_size(params.limit)?;
    let after = params.after.map_or(0, Cursor::last_id);
    let fetch = i64::from(limit) + 1;
    let rows: Vec<LeaderChangeRow> = match &params.lease {
        Some(lease) => {
            sqlx::query_as(include_str!("../queries/history_of_lease.sql"))
                .bind(lease.as_str())
                .bind(after)
                .bind(fetch)
                .fetch_all(read)
                .await
        }
        None => {
            sqlx::query_as(include_str!("../queries/history_all.sql"))
                .bind(after)
                .bind(fetch)
                .fetch_all(read)
                .await
        }
    }
    .map_err(|err| from_sqlx("reading the leader-change history", err))?;

    let items = rows.into_iter().map(LeaderChangeRow::into_change).collect::<Result<Vec<_>>>()?;
    Ok(Page::from_fetched(items, limit, |change| change.id))
}
