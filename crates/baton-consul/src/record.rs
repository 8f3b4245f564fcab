//! The value of a lease's key: a JSON record of the term (holder, TTL, times on the agent's
//! clock, token, how it was released) and the lease's latest leader changes.
//!
//! Whether the lease is held is not in the record: it is the key's lock. A key whose session
//! holds it is held by the record's holder; a key without one is free, released if the record
//! says how, expired otherwise (its session was invalidated).

use std::time::Duration;

use baton_core::{
    ChangeReason, Error, ErrorKind, FencingToken, HolderId, LeaderChange, Lease, LeaseName,
    ReleaseKind, Result, StoreTime,
};
use serde::{Deserialize, Serialize};

use crate::wire::KvEntry;

/// Leader changes kept in each record; older ones are dropped.
pub const HISTORY_LENGTH: usize = 32;

/// One leader change as the record keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Change {
    pub(crate) token: u64,
    pub(crate) holder: String,
    /// Milliseconds since the epoch, on the agent's clock.
    pub(crate) at: i64,
    pub(crate) reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) previous_end: Option<i64>,
}

/// A lease's record as stored in its key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Record {
    pub(crate) holder: String,
    /// The TTL in whole seconds.
    pub(crate) ttl: u64,
    /// Milliseconds since the epoch, on the agent's clock.
    pub(crate) acquired_at: i64,
    /// The last renewal, or the release; milliseconds on the agent's clock.
    pub(crate) renewed_at: i64,
    /// The token; `None` between the acquiring write and the write that records it (readers
    /// then take the key's `ModifyIndex`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) token: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) released: Option<String>,
    #[serde(default)]
    pub(crate) history: Vec<Change>,
}

fn malformed(key: &str) -> Error {
    Error::new(
        ErrorKind::Internal,
        format!("key {key} holds no baton lease record: not written by baton?"),
    )
}

/// A lease key as read: the entry and its record.
#[derive(Debug, Clone)]
pub(crate) struct Stored {
    pub(crate) entry: KvEntry,
    pub(crate) record: Record,
}

impl Stored {
    /// Reads the record in `entry`.
    pub(crate) fn read(entry: KvEntry) -> Result<Stored> {
        let value = entry.value().map_err(|_| malformed(&entry.key))?;
        let record = serde_json::from_slice(&value).map_err(|_| malformed(&entry.key))?;
        Ok(Stored { entry, record })
    }

    /// The session holding the lease, if it is held.
    pub(crate) fn session(&self) -> Option<&str> {
        self.entry.holder_session()
    }

    /// The term's token: the record's, or the key's `ModifyIndex` while the acquiring write's
    /// token is not recorded yet.
    pub(crate) fn token(&self) -> u64 {
        self.record.token.unwrap_or(self.entry.modify_index)
    }

    /// How the lease was released, if it is free and the record says.
    pub(crate) fn released(&self) -> Option<ReleaseKind> {
        match self.session() {
            Some(_) => None,
            None => self.record.released.as_deref().and_then(ReleaseKind::parse),
        }
    }

    /// Whether `holder` holds the lease under `token`, as far as the record and its lock say.
    pub(crate) fn held_by(&self, holder: &HolderId, token: FencingToken) -> bool {
        self.session().is_some()
            && self.record.holder == holder.as_str()
            && self.token() == token.get()
    }

    /// The lease as stored: held while a session holds the key, until its last renewal plus
    /// its TTL; released at its last write; expired (the holder kept, lapsed) otherwise.
    pub(crate) fn lease(&self, name: &LeaseName) -> Result<Lease> {
        let record = &self.record;
        let ttl = Duration::from_secs(record.ttl);
        let renewed_at = StoreTime::from_millis(record.renewed_at);
        let released = self.released();
        let holder = match released {
            Some(_) => None,
            None => Some(HolderId::new(&record.holder).map_err(|_| malformed(&self.entry.key))?),
        };
        Ok(Lease {
            name: name.clone(),
            holder,
            token: FencingToken::new(self.token())?,
            acquired_at: StoreTime::from_millis(record.acquired_at),
            renewed_at,
            expires_at: match released {
                Some(_) => renewed_at,
                None => renewed_at.saturating_add(ttl),
            },
            ttl,
            released,
        })
    }

    /// Why the lease is free to acquire now and when its previous term ended (`None` if it is
    /// held).
    pub(crate) fn vacancy(&self) -> Option<(ChangeReason, StoreTime)> {
        let end = StoreTime::from_millis(self.record.renewed_at);
        match (self.session(), self.released()) {
            (Some(_), _) => None,
            (None, Some(ReleaseKind::Forced)) => Some((ChangeReason::ForcedRelease, end)),
            (None, Some(_)) => Some((ChangeReason::Handover, end)),
            (None, None) => Some((ChangeReason::ExpiredTakeover, end)),
        }
    }

    /// The leader changes kept, as the store trait reports them (each identified by its token).
    pub(crate) fn leader_changes(&self, name: &LeaseName) -> Result<Vec<LeaderChange>> {
        let key = &self.entry.key;
        self.record
            .history
            .iter()
            .map(|change| {
                Ok(LeaderChange {
                    id: i64::try_from(change.token).map_err(|_| malformed(key))?,
                    lease: name.clone(),
                    holder: HolderId::new(&change.holder).map_err(|_| malformed(key))?,
                    token: FencingToken::new(change.token)?,
                    at: StoreTime::from_millis(change.at),
                    reason: ChangeReason::parse(&change.reason).ok_or_else(|| malformed(key))?,
                    previous_end: change.previous_end.map(StoreTime::from_millis),
                })
            })
            .collect()
    }
}

impl Record {
    /// The record of a new term: `holder` from `at` for `ttl`, over the history of `previous`;
    /// no token yet.
    pub(crate) fn granted(
        previous: Option<&Record>,
        holder: &HolderId,
        ttl: Duration,
        at: StoreTime,
    ) -> Record {
        Record {
            holder: holder.to_string(),
            ttl: ttl.as_secs(),
            acquired_at: at.as_millis(),
            renewed_at: at.as_millis(),
            token: None,
            released: None,
            history: previous.map(|record| record.history.clone()).unwrap_or_default(),
        }
    }

    /// The record with its `token` written and the leader change appended.
    pub(crate) fn with_token(
        &self,
        token: u64,
        reason: ChangeReason,
        previous_end: Option<StoreTime>,
    ) -> Record {
        let mut record = self.clone();
        record.token = Some(token);
        record.history.push(Change {
            token,
            holder: self.holder.clone(),
            at: self.acquired_at,
            reason: reason.as_str().to_string(),
            previous_end: previous_end.map(StoreTime::as_millis),
        });
        let excess = record.history.len().saturating_sub(HISTORY_LENGTH);
        record.history.drain(..excess);
        record
    }

    /// The record renewed at `at`.
    pub(crate) fn renewed(&self, at: StoreTime) -> Record {
        Record { renewed_at: at.as_millis(), ..self.clone() }
    }

    /// The record released (`kind`) at `at`.
    pub(crate) fn released(&self, kind: ReleaseKind, at: StoreTime) -> Record {
        Record {
            renewed_at: at.as_millis(),
            released: Some(kind.as_str().to_string()),
            ..self.clone()
        }
    }

    /// The lease of the term this record states, held under `token`.
    pub(crate) fn held_lease(&self, name: &LeaseName, token: FencingToken) -> Result<Lease> {
        let renewed_at = StoreTime::from_millis(self.renewed_at);
        let ttl = Duration::from_secs(self.ttl);
        Ok(Lease {
            name: name.clone(),
            holder: Some(HolderId::new(&self.holder)?),
            token,
            acquired_at: StoreTime::from_millis(self.acquired_at),
            renewed_at,
            expires_at: renewed_at.saturating_add(ttl),
            ttl,
            released: None,
        })
    }

    /// The record as the key's value.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(record: &Record, session: Option<&str>, modify_index: u64) -> KvEntry {
        use base64::Engine;
        let value = base64::engine::general_purpose::STANDARD.encode(record.to_bytes());
        serde_json::from_value(serde_json::json!({
            "Key": "baton/leases/job", "ModifyIndex": modify_index,
            "Session": session, "Value": value,
        }))
        .unwrap()
    }

    #[test]
    fn a_term_reads_as_held_while_its_session_holds_the_key() {
        let name = LeaseName::new("job").unwrap();
        let holder = HolderId::new("a").unwrap();
        let at = StoreTime::from_millis(1_000_000);
        let record = Record::granted(None, &holder, Duration::from_secs(10), at);
        let pending = Stored::read(entry(&record, Some("s"), 7)).unwrap();
        assert_eq!(pending.token(), 7, "the ModifyIndex until the token is written");
        let record = record.with_token(7, ChangeReason::Fresh, None);
        let held = Stored::read(entry(&record, Some("s"), 8)).unwrap();
        let lease = held.lease(&name).unwrap();
        assert_eq!((lease.token.get(), lease.holder.as_ref()), (7, Some(&holder)));
        assert_eq!(lease.expires_at, StoreTime::from_millis(1_010_000));
        assert!(held.held_by(&holder, lease.token) && held.vacancy().is_none());
        assert_eq!(held.leader_changes(&name).unwrap()[0].id, 7);

        let expired = Stored::read(entry(&record, None, 9)).unwrap();
        assert_eq!(expired.vacancy(), Some((ChangeReason::ExpiredTakeover, at)));
        assert!(!expired.held_by(&holder, lease.token));
        let later = StoreTime::from_millis(1_004_000);
        let released = record.released(ReleaseKind::Forced, later);
        let released = Stored::read(entry(&released, None, 10)).unwrap();
        assert_eq!(released.vacancy(), Some((ChangeReason::ForcedRelease, later)));
        let lease = released.lease(&name).unwrap();
        assert_eq!((lease.holder, lease.expires_at, lease.token.get()), (None, later, 7));
    }

    #[test]
    fn the_history_keeps_the_latest_changes() {
        let holder = HolderId::new("a").unwrap();
        let mut record =
            Record::granted(None, &holder, Duration::from_secs(10), StoreTime::from_millis(0));
        for token in 1..=(HISTORY_LENGTH as u64 + 3) {
            record = record.with_token(token, ChangeReason::Handover, None);
        }
        assert_eq!(record.history.len(), HISTORY_LENGTH);
        assert_eq!(record.history[0].token, 4);
    }
}
