//! etcd's v3 API as its JSON gateway speaks it: requests built as JSON values, answers read
//! into the few types below.
//!
//! The gateway writes keys and values in base64, 64-bit integers as decimal strings, and leaves
//! out every field at its zero value (a missing `succeeded` is `false`, a missing `kvs` is
//! empty).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Deserializer};
use serde_json::{Value, json};

/// Encodes bytes as the gateway expects them.
pub(crate) fn b64(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// A 64-bit integer the gateway wrote as a decimal string (or, leniently, as a number).
fn int<'de, D: Deserializer<'de>>(deserializer: D) -> Result<i64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Int {
        Text(String),
        Number(i64),
    }
    match Int::deserialize(deserializer)? {
        Int::Number(number) => Ok(number),
        Int::Text(text) => text.parse().map_err(serde::de::Error::custom),
    }
}

/// Bytes the gateway wrote in base64.
fn bytes<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
    let text = String::deserialize(deserializer)?;
    STANDARD.decode(text).map_err(serde::de::Error::custom)
}

/// The header of every answer.
#[derive(Debug, Default, Clone, Deserialize)]
pub(crate) struct Header {
    /// The store's revision when the request was served: for a write, the revision it made.
    #[serde(default, deserialize_with = "int")]
    pub(crate) revision: i64,
}

/// One key as stored.
#[derive(Debug, Default, Clone, Deserialize)]
pub(crate) struct KeyValue {
    #[serde(default, deserialize_with = "bytes")]
    pub(crate) key: Vec<u8>,
    /// The revision that created the key.
    #[serde(default, deserialize_with = "int")]
    pub(crate) create_revision: i64,
    /// The revision that last wrote the key.
    #[serde(default, deserialize_with = "int")]
    pub(crate) mod_revision: i64,
    #[serde(default, deserialize_with = "bytes")]
    pub(crate) value: Vec<u8>,
    /// The etcd lease the key is attached to; 0 for none.
    #[serde(default, deserialize_with = "int")]
    pub(crate) lease: i64,
}

/// The answer to a range.
#[derive(Debug, Default, Clone, Deserialize)]
pub(crate) struct RangeResponse {
    #[serde(default)]
    pub(crate) kvs: Vec<KeyValue>,
    /// Whether more keys matched than the limit let through.
    #[serde(default)]
    pub(crate) more: bool,
}

/// The answer to one operation of a transaction.
#[derive(Debug, Default, Clone, Deserialize)]
pub(crate) struct ResponseOp {
    pub(crate) response_range: Option<RangeResponse>,
}

/// The answer to a transaction.
#[derive(Debug, Default, Clone, Deserialize)]
pub(crate) struct TxnResponse {
    #[serde(default)]
    pub(crate) header: Header,
    /// Whether every comparison held, so that the success branch ran.
    #[serde(default)]
    pub(crate) succeeded: bool,
    #[serde(default)]
    pub(crate) responses: Vec<ResponseOp>,
}

impl TxnResponse {
    /// The answer of the range at `index` in the branch that ran (empty when missing).
    pub(crate) fn range(&self, index: usize) -> RangeResponse {
        self.responses.get(index).and_then(|op| op.response_range.clone()).unwrap_or_default()
    }

    /// The first key of the range at `index`, if any.
    pub(crate) fn first(&self, index: usize) -> Option<KeyValue> {
        self.range(index).kvs.into_iter().next()
    }
}

/// The answer to a lease grant or to one keep-alive.
#[derive(Debug, Default, Clone, Deserialize)]
pub(crate) struct LeaseAnswer {
    #[serde(rename = "ID", default, deserialize_with = "int")]
    pub(crate) id: i64,
    /// The lease's time to live in seconds; 0 (or missing) for a lease that no longer exists.
    #[serde(rename = "TTL", default, deserialize_with = "int")]
    pub(crate) ttl: i64,
}

/// One message of a streamed answer: a result, or the error that ended the stream.
#[derive(Debug, Deserialize)]
pub(crate) struct Streamed<T> {
    pub(crate) result: Option<T>,
    pub(crate) error: Option<Value>,
}

/// A watch answer: its events.
#[derive(Debug, Default, Clone, Deserialize)]
pub(crate) struct WatchResponse {
    #[serde(default)]
    pub(crate) events: Vec<Event>,
    #[serde(default)]
    pub(crate) canceled: bool,
    #[serde(default)]
    pub(crate) cancel_reason: String,
}

/// A change a watch reports.
#[derive(Debug, Default, Clone, Deserialize)]
pub(crate) struct Event {
    /// `DELETE`, or missing for a put.
    #[serde(rename = "type", default)]
    pub(crate) kind: String,
    #[serde(default)]
    pub(crate) kv: KeyValue,
}

/// The key just after every key that starts with `prefix`: the end of a prefix range.
pub(crate) fn prefix_end(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return end;
        }
    }
    vec![0]
}

/// Operations and comparisons of a transaction.
pub(crate) mod op {
    use super::*;

    /// Reads one key.
    pub(crate) fn get(key: &[u8]) -> Value {
        json!({ "request_range": { "key": b64(key) } })
    }

    /// Reads every key that starts with `prefix`, in key order.
    pub(crate) fn prefix(prefix: &[u8]) -> Value {
        json!({ "request_range": { "key": b64(prefix), "range_end": b64(&prefix_end(prefix)) } })
    }

    /// Reads the key that sorts last among those starting with `prefix`, without its value.
    pub(crate) fn last_key(prefix: &[u8]) -> Value {
        json!({ "request_range": {
            "key": b64(prefix), "range_end": b64(&prefix_end(prefix)), "limit": "1",
            "sort_order": "DESCEND", "sort_target": "KEY", "keys_only": true,
        } })
    }

    /// Writes a key, attached to etcd lease `lease` unless it is 0.
    pub(crate) fn put(key: &[u8], value: &[u8], lease: i64) -> Value {
        json!({ "request_put": { "key": b64(key), "value": b64(value), "lease": lease.to_string() } })
    }

    /// Deletes one key.
    pub(crate) fn delete(key: &[u8]) -> Value {
        json!({ "request_delete_range": { "key": b64(key) } })
    }

    /// A transaction nested in another one.
    pub(crate) fn txn(compare: Vec<Value>, success: Vec<Value>) -> Value {
        json!({ "request_txn": { "compare": compare, "success": success, "failure": [] } })
    }

    /// The key was created at `revision` (0: it does not exist).
    pub(crate) fn created_at(key: &[u8], revision: i64) -> Value {
        json!({ "key": b64(key), "target": "CREATE", "result": "EQUAL",
                "create_revision": revision.to_string() })
    }

    /// The key was last written at `revision` (0: it does not exist).
    pub(crate) fn written_at(key: &[u8], revision: i64) -> Value {
        json!({ "key": b64(key), "target": "MOD", "result": "EQUAL",
                "mod_revision": revision.to_string() })
    }

    /// At least one key starts with `prefix`: etcd compares every key of the range, and an
    /// empty range as one key that does not exist (created at revision 0).
    pub(crate) fn any_under(prefix: &[u8]) -> Value {
        json!({ "key": b64(prefix), "range_end": b64(&prefix_end(prefix)), "target": "CREATE",
                "result": "GREATER", "create_revision": "0" })
    }

    /// The key holds exactly `value`.
    pub(crate) fn holds(key: &[u8], value: &[u8]) -> Value {
        json!({ "key": b64(key), "target": "VALUE", "result": "EQUAL", "value": b64(value) })
    }
}

/// A whole transaction.
pub(crate) fn txn(compare: Vec<Value>, success: Vec<Value>, failure: Vec<Value>) -> Value {
    json!({ "compare": compare, "success": success, "failure": failure })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_with_omitted_fields_read_as_zero() {
        let answer: TxnResponse = serde_json::from_str(
            r#"{"header":{"revision":"7"},"responses":[{"response_range":{"kvs":[
                {"key":"Zm9v","create_revision":"5","mod_revision":"6","value":"YmFy"}]}}]}"#,
        )
        .unwrap();
        assert!(!answer.succeeded);
        assert_eq!(answer.header.revision, 7);
        let kv = answer.first(0).unwrap();
        assert_eq!((kv.key.as_slice(), kv.value.as_slice()), (&b"foo"[..], &b"bar"[..]));
        assert_eq!((kv.create_revision, kv.mod_revision, kv.lease), (5, 6, 0));
        assert!(answer.first(1).is_none());
    }

    #[test]
    fn a_prefix_range_ends_after_every_key_with_the_prefix() {
        assert_eq!(prefix_end(b"baton/"), b"baton0");
        assert_eq!(prefix_end(b"a\xff"), b"b");
        assert_eq!(prefix_end(b"\xff"), [0]);
    }
}
