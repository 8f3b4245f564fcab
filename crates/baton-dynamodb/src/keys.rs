//! The table's key design and the attributes of its items.
//!
//! One table, keyed by `pk` (partition key, string) and `sk` (sort key, string), holds three
//! kinds of item:
//!
//! | item | `pk` | `sk` | attributes |
//! | --- | --- | --- | --- |
//! | a lease | `lease` | the lease name | `holder` (absent once released), `token`, `rev`, `ttl_ms`, `acquired_at`, `renewed_at`, `released` |
//! | its token counter | `token` | the lease name | `token` (the highest issued), `acquisitions` |
//! | one leader change | `history#` + the lease name | a slot, `00` to `63` | `token`, `holder`, `at`, `reason`, `previous_end` |
//!
//! Every lease shares the partition `lease`, so that listing them is one strongly consistent
//! Query; the counters and the history live apart from the lease items, so that deleting a
//! lease item from outside keeps both.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use baton_core::{Error, ErrorKind, Result};

/// The partition key attribute.
pub(crate) const PK: &str = "pk";
/// The sort key attribute.
pub(crate) const SK: &str = "sk";

/// The partition of the lease items.
pub(crate) const LEASES: &str = "lease";
/// The partition of the token counters.
pub(crate) const COUNTERS: &str = "token";
/// The prefix of a lease's history partition.
const HISTORY_PREFIX: &str = "history#";

/// Attribute names.
pub(crate) const HOLDER: &str = "holder";
pub(crate) const TOKEN: &str = "token";
pub(crate) const REV: &str = "rev";
pub(crate) const TTL_MS: &str = "ttl_ms";
pub(crate) const ACQUIRED_AT: &str = "acquired_at";
pub(crate) const RENEWED_AT: &str = "renewed_at";
pub(crate) const RELEASED: &str = "released";
pub(crate) const ACQUISITIONS: &str = "acquisitions";
pub(crate) const AT: &str = "at";
pub(crate) const REASON: &str = "reason";
pub(crate) const PREVIOUS_END: &str = "previous_end";

/// An item, or a key, as the SDK takes it.
pub(crate) type Item = HashMap<String, AttributeValue>;

fn key(pk: String, sk: &str) -> Item {
    HashMap::from([(PK.to_string(), AttributeValue::S(pk)), (SK.to_string(), s(sk))])
}

/// The key of a lease's item.
pub(crate) fn lease(name: &str) -> Item {
    key(LEASES.to_string(), name)
}

/// The key of a lease's token counter.
pub(crate) fn counter(name: &str) -> Item {
    key(COUNTERS.to_string(), name)
}

/// The partition of a lease's history.
pub(crate) fn history_partition(name: &str) -> String {
    format!("{HISTORY_PREFIX}{name}")
}

/// The key of one slot of a lease's history.
pub(crate) fn history_slot(name: &str, slot: u64) -> Item {
    key(history_partition(name), &format!("{slot:02}"))
}

/// A string value.
pub(crate) fn s(text: &str) -> AttributeValue {
    AttributeValue::S(text.to_string())
}

/// A number value.
pub(crate) fn n(value: impl std::fmt::Display) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

fn malformed(item: &Item, attribute: &str) -> Error {
    let sk = item.get(SK).and_then(|value| value.as_s().ok()).map_or("?", String::as_str);
    Error::new(
        ErrorKind::Internal,
        format!("item {sk} of the lease table has a malformed {attribute}: not written by baton?"),
    )
}

/// A string attribute, if present.
pub(crate) fn get_s<'a>(item: &'a Item, attribute: &str) -> Result<Option<&'a str>> {
    match item.get(attribute) {
        None => Ok(None),
        Some(AttributeValue::S(text)) => Ok(Some(text)),
        Some(_) => Err(malformed(item, attribute)),
    }
}

/// A number attribute that fits in a `u64`, if present.
pub(crate) fn get_u64(item: &Item, attribute: &str) -> Result<Option<u64>> {
    match item.get(attribute) {
        None => Ok(None),
        Some(AttributeValue::N(text)) => {
            text.parse().map(Some).map_err(|_| malformed(item, attribute))
        }
        Some(_) => Err(malformed(item, attribute)),
    }
}

/// A number attribute that fits in an `i64`, if present.
pub(crate) fn get_i64(item: &Item, attribute: &str) -> Result<Option<i64>> {
    match item.get(attribute) {
        None => Ok(None),
        Some(AttributeValue::N(text)) => {
            text.parse().map(Some).map_err(|_| malformed(item, attribute))
        }
        Some(_) => Err(malformed(item, attribute)),
    }
}

/// A number attribute that must be present.
pub(crate) fn require_u64(item: &Item, attribute: &str) -> Result<u64> {
    get_u64(item, attribute)?.ok_or_else(|| malformed(item, attribute))
}

/// The expression attribute names of `attributes`: `#name` for each.
pub(crate) fn names(attributes: &[&str]) -> HashMap<String, String> {
    attributes.iter().map(|name| (format!("#{name}"), name.to_string())).collect()
}
