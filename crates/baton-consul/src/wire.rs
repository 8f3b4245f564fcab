//! What Consul's HTTP API answers, as read here: KV entries (base64 values) and the agent's
//! `Date` header, its only clock.

use base64::Engine;
use baton_core::StoreTime;
use serde::Deserialize;

/// One KV entry as `GET /v1/kv/KEY` answers it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(crate) struct KvEntry {
    pub(crate) key: String,
    /// The raft index of the entry's last write: the fencing token of the write that acquired it.
    pub(crate) modify_index: u64,
    /// The session holding the key's lock.
    #[serde(default)]
    pub(crate) session: Option<String>,
    /// The value, base64.
    #[serde(default)]
    value: Option<String>,
}

impl KvEntry {
    /// The value's bytes (empty for none); an error for a value that is not base64.
    pub(crate) fn value(&self) -> Result<Vec<u8>, String> {
        match &self.value {
            None => Ok(Vec::new()),
            Some(text) => base64::engine::general_purpose::STANDARD
                .decode(text)
                .map_err(|err| format!("the value of {} is not base64: {err}", self.key)),
        }
    }

    /// The session holding the key, if any (Consul may answer an empty one).
    pub(crate) fn holder_session(&self) -> Option<&str> {
        self.session.as_deref().filter(|session| !session.is_empty())
    }
}

/// A session as `PUT /v1/session/create` answers it.
#[derive(Debug, Deserialize)]
pub(crate) struct Created {
    #[serde(rename = "ID")]
    pub(crate) id: String,
}

/// Reads an HTTP `Date` header (`Sun, 06 Nov 1994 08:49:37 GMT`).
pub(crate) fn http_date(text: &str) -> Option<StoreTime> {
    let parsed = jiff::fmt::rfc2822::DateTimeParser::new().parse_timestamp(text).ok()?;
    Some(StoreTime::from_millis(parsed.as_millisecond()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_entries_are_read_as_consul_writes_them() {
        let at = http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        assert_eq!(at, StoreTime::from_millis(784_111_777_000));
        assert_eq!(http_date("yesterday"), None);
        let entries: Vec<KvEntry> = serde_json::from_str(
            r#"[{"LockIndex":1,"Key":"baton/leases/a","Flags":0,"Value":"eyJ9","Session":"s-1",
                "CreateIndex":4,"ModifyIndex":9},
               {"LockIndex":0,"Key":"baton/leases/b","Flags":0,"Value":null,
                "CreateIndex":5,"ModifyIndex":5}]"#,
        )
        .unwrap();
        assert_eq!(entries[0].value().unwrap(), b"{\"}");
        assert_eq!((entries[0].holder_session(), entries[0].modify_index), (Some("s-1"), 9));
        assert_eq!((entries[1].holder_session(), entries[1].value().unwrap()), (None, vec![]));
    }
}
