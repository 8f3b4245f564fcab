//! The leader-change history: one stream per lease whose entry ids are `<token>-0`, so a
//! change's position is its token.
//!
//! One lease's history is one `XRANGE` from the cursor. The history of every lease merges the
//! streams of all names in the index (one `XRANGE` each, in one round trip), which costs a read
//! per lease: it is meant for operators, not for a hot path. Tokens of different leases can be
//! equal (two leases acquired in the same microsecond); a page never ends between such changes,
//! so that a cursor never skips one.

use baton_core::page::check_page_size;
use baton_core::{Cursor, HistoryParams, LeaderChange, Page, Result};

use crate::keys::LeaseKeys;
use crate::record;
use crate::store::Inner;

/// One stream entry as `XRANGE` answers it: its id and its field/value pairs.
type Entry = (String, Vec<(String, String)>);

/// Reads one page of the history.
pub(crate) async fn read(inner: &Inner, params: HistoryParams) -> Result<Page<LeaderChange>> {
    let limit = check_page_size(params.limit)? as usize;
    let names = match params.lease {
        Some(name) => vec![name],
        None => inner.names().await?,
    };
    if names.is_empty() {
        return Ok(Page { items: Vec::new(), next: None });
    }
    // Entry ids all end in -0, so "<id>-1" starts just after the cursor's entry.
    let start =
        params.after.map_or_else(|| "-".to_string(), |after| format!("{}-1", after.last_id()));
    let mut pipeline = redis::pipe();
    for name in &names {
        pipeline
            .cmd("XRANGE")
            .arg(LeaseKeys::of(name).history)
            .arg(&start)
            .arg("+")
            .arg("COUNT")
            .arg(limit + 1);
    }
    let streams: Vec<Vec<Entry>> =
        inner.link.pipeline(&pipeline, "reading the leader-change history").await?;
    let mut changes = Vec::new();
    for (name, entries) in names.iter().zip(streams) {
        for (id, fields) in entries {
            changes.push(record::leader_change(name, &id, &fields)?);
        }
    }
    changes.sort_by(|a, b| (a.id, &a.lease).cmp(&(b.id, &b.lease)));
    Ok(page(changes, limit))
}

/// The first page of `changes` (sorted by id): at most `limit` of them, except that changes
/// sharing an id stay on one page. When such a group would straddle the end, the page ends before
/// it; when the group fills the page from its start, the page takes all of it.
fn page(mut changes: Vec<LeaderChange>, limit: usize) -> Page<LeaderChange> {
    if changes.len() <= limit {
        return Page { items: changes, next: None };
    }
    let last = changes[limit - 1].id;
    let mut end = limit;
    if changes[limit].id == last {
        let first = changes.iter().position(|change| change.id == last).unwrap_or(0);
        end = match first {
            0 => changes.iter().take_while(|change| change.id == last).count(),
            first => first,
        };
    }
    changes.truncate(end);
    let next = changes.last().map(|change| Cursor::after(change.id));
    Page { items: changes, next }
}

#[cfg(test)]
mod tests {
    use super::*;
    use baton_core::{ChangeReason, FencingToken, HolderId, LeaseName, StoreTime};

    fn change(id: i64, lease: &str) -> LeaderChange {
        LeaderChange {
            id,
            lease: LeaseName::new(lease).unwrap(),
            holder: HolderId::new("h").unwrap(),
            token: FencingToken::from_store(id).unwrap(),
            at: StoreTime::from_millis(0),
            reason: ChangeReason::Fresh,
            previous_end: None,
        }
    }

    fn ids(page: &Page<LeaderChange>) -> Vec<i64> {
        page.items.iter().map(|change| change.id).collect()
    }

    #[test]
    fn pages_end_at_the_limit_with_a_cursor_when_more_follow() {
        let all = vec![change(1, "a"), change(2, "b"), change(3, "a")];
        let first = page(all.clone(), 2);
        assert_eq!(ids(&first), [1, 2]);
        assert_eq!(first.next, Some(Cursor::after(2)));
        let last = page(all, 3);
        assert_eq!((ids(&last), last.next), (vec![1, 2, 3], None));
    }

    #[test]
    fn changes_sharing_an_id_are_never_split_across_pages() {
        let tied = vec![change(1, "a"), change(5, "a"), change(5, "b"), change(6, "c")];
        let before = page(tied.clone(), 2);
        assert_eq!(ids(&before), [1]);
        assert_eq!(before.next, Some(Cursor::after(1)));
        let whole = page(tied[1..].to_vec(), 1);
        assert_eq!(ids(&whole), [5, 5]);
        assert_eq!(whole.next, Some(Cursor::after(5)));
    }
}
