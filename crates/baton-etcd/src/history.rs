//! The leader-change history: one key per acquisition under `baton/history/`, written by the
//! acquiring transaction, so that its creation revision is the term's token and orders the
//! history. Each acquisition deletes the entry `history_length` acquisitions older than itself.
//!
//! A page is one range read sorted by creation revision from just after the cursor. etcd sorts
//! a range in full before cutting it to the page, so a page costs a read of every entry of the
//! lease (of every lease, without one): meant for operators, not for a hot path.

use baton_core::page::check_page_size;
use baton_core::{Cursor, HistoryParams, LeaderChange, Page, Result};
use serde_json::json;

use crate::keys::{HISTORY, LeaseKeys};
use crate::record;
use crate::store::Inner;
use crate::wire::{RangeResponse, b64, prefix_end};

/// Reads one page of the history.
pub(crate) async fn read(inner: &Inner, params: HistoryParams) -> Result<Page<LeaderChange>> {
    let limit = check_page_size(params.limit)? as usize;
    let prefix = match &params.lease {
        Some(name) => LeaseKeys::of(name).history,
        None => HISTORY.as_bytes().to_vec(),
    };
    let after = params.after.map_or(0, |cursor| cursor.last_id());
    let request = json!({
        "key": b64(&prefix), "range_end": b64(&prefix_end(&prefix)),
        "min_create_revision": (after + 1).to_string(), "limit": (limit + 1).to_string(),
        "sort_order": "ASCEND", "sort_target": "CREATE",
    });
    let answer: RangeResponse =
        inner.client.call("/v3/kv/range", &request, "reading the leader-change history").await?;
    let mut changes = answer.kvs.iter().map(record::leader_change).collect::<Result<Vec<_>>>()?;
    let more = changes.len() > limit || answer.more;
    changes.truncate(limit);
    let next = match more {
        true => changes.last().map(|change| Cursor::after(change.id)),
        false => None,
    };
    Ok(Page { items: changes, next })
}
