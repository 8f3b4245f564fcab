//! A lease as its keys show it, and the JSON values of those keys.
//!
//! Instants are milliseconds since the Unix epoch on the clock of the client that wrote them
//! (etcd has no clock a client can read); TTLs are milliseconds.

use std::time::Duration;

use baton_core::{
    ChangeReason, FencingToken, HolderId, LeaderChange, Lease, LeaseName, ReleaseKind, Result,
    StoreTime,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::malformed;
use crate::keys::{self, LeaseKeys};
use crate::wire::{KeyValue, TxnResponse, op};

/// The value of a lease's record: written by each acquisition.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RecordValue {
    pub(crate) holder: String,
    pub(crate) ttl_ms: u64,
    /// When the acquisition was sent.
    pub(crate) at: i64,
    /// The acquisition's number in the lease's history.
    pub(crate) seq: u64,
    /// The etcd lease that carries the term (0 in records written before it was recorded).
    #[serde(default)]
    pub(crate) lease: i64,
}

/// The value of a renewal or release key: when it happened and, for a release, how. A renewal
/// key records the last renewal of every lease its etcd lease carries.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct EventValue {
    pub(crate) at: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) kind: Option<String>,
}

/// The value of a history entry.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct HistoryValue {
    pub(crate) holder: String,
    pub(crate) reason: String,
    pub(crate) at: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) ended: Option<i64>,
}

/// JSON bytes of a value.
pub(crate) fn encode(value: &impl Serialize) -> Vec<u8> {
    serde_json::to_vec(value).expect("lease values serialize")
}

/// The value of a renewal (`kind` `None`) or of a release of `kind`, at instant `at`.
pub(crate) fn event(at: i64, kind: Option<&str>) -> Vec<u8> {
    encode(&EventValue { at, kind: kind.map(str::to_string) })
}

/// This machine's clock, in milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| i64::try_from(since.as_millis()).unwrap_or(i64::MAX))
}

/// The keys of one lease as read together.
#[derive(Debug, Clone, Default)]
pub(crate) struct State {
    pub(crate) record: Option<KeyValue>,
    pub(crate) holder: Option<KeyValue>,
    /// The renewal key of the etcd lease `renewal_of`: it counts only if that lease carries
    /// the latest term.
    pub(crate) renewal: Option<KeyValue>,
    /// The etcd lease whose renewal key was read (0: none).
    pub(crate) renewal_of: i64,
    pub(crate) release: Option<KeyValue>,
    /// The sequence number of the newest history entry; 0 for none.
    pub(crate) last_seq: u64,
}

/// The ranges that read a [`State`], in the order [`State::read`] expects their answers; the
/// renewal read is that of the etcd lease `carrier` is expected to carry the term (0: none).
pub(crate) fn reads(keys: &LeaseKeys, carrier: i64) -> Vec<Value> {
    vec![
        op::get(&keys.record),
        op::get(&keys.holder),
        op::get(&keys::renewal(carrier)),
        op::get(&keys.release),
        op::last_key(&keys.history),
    ]
}

fn parse<'a, T: Deserialize<'a>>(name: &LeaseName, what: &str, bytes: &'a [u8]) -> Result<T> {
    serde_json::from_slice(bytes)
        .map_err(|err| malformed(format!("the {what} of lease {name}: {err}")))
}

impl State {
    /// The state from the answers to [`reads`] of `carrier`'s renewal, starting at `first`.
    pub(crate) fn read(answer: &TxnResponse, first: usize, carrier: i64) -> State {
        State {
            record: answer.first(first),
            holder: answer.first(first + 1),
            renewal: answer.first(first + 2),
            renewal_of: carrier,
            release: answer.first(first + 3),
            last_seq: answer
                .first(first + 4)
                .and_then(|kv| keys::history_seq(&kv.key))
                .unwrap_or(0),
        }
    }

    /// The etcd lease that carries the latest term, if the record names one.
    pub(crate) fn carrier(&self) -> Option<i64> {
        let value: RecordValue = serde_json::from_slice(&self.record.as_ref()?.value).ok()?;
        Some(value.lease).filter(|id| *id != 0)
    }

    /// The etcd lease whose renewal key must still be read to know the latest term's last
    /// renewal, if any.
    pub(crate) fn missing_renewal(&self) -> Option<i64> {
        self.carrier().filter(|carrier| *carrier != self.renewal_of)
    }

    /// The latest token: the revision of the latest acquisition.
    pub(crate) fn token(&self) -> Option<i64> {
        self.record.as_ref().map(|record| record.mod_revision)
    }

    /// The key `kv` when it was written during the current term.
    fn of_this_term<'a>(&self, kv: &'a Option<KeyValue>) -> Option<&'a KeyValue> {
        let token = self.token()?;
        kv.as_ref().filter(|kv| kv.mod_revision > token)
    }

    /// Whether the holder key of the current term exists: the lease is held.
    pub(crate) fn is_held(&self) -> bool {
        self.holder.is_some()
    }

    /// The record's value.
    pub(crate) fn value(&self, name: &LeaseName) -> Result<Option<RecordValue>> {
        self.record.as_ref().map(|record| parse(name, "record", &record.value)).transpose()
    }

    /// The lease as stored, or `None` without a record.
    pub(crate) fn lease(&self, name: &LeaseName) -> Result<Option<Lease>> {
        let (Some(record), Some(value)) = (&self.record, self.value(name)?) else {
            return Ok(None);
        };
        let bad = |what: &str| malformed(format!("lease {name} has {what} in etcd"));
        let ttl = Duration::from_millis(value.ttl_ms);
        let acquired_at = StoreTime::from_millis(value.at);
        let renewal = self.renewal.clone().filter(|_| value.lease == self.renewal_of);
        let renewed_at = match self.of_this_term(&renewal) {
            Some(renewal) => {
                StoreTime::from_millis(parse::<EventValue>(name, "renewal", &renewal.value)?.at)
            }
            None => acquired_at,
        };
        let holder = HolderId::new(&value.holder).map_err(|_| bad("an invalid holder"))?;
        let token = FencingToken::from_store(record.mod_revision)?;
        let mut lease = Lease {
            name: name.clone(),
            holder: Some(holder),
            token,
            acquired_at,
            renewed_at,
            expires_at: renewed_at.saturating_add(ttl),
            ttl,
            released: None,
        };
        if let Some(release) = self.of_this_term(&self.release) {
            let release: EventValue = parse(name, "release", &release.value)?;
            let kind = release.kind.as_deref().and_then(ReleaseKind::parse);
            lease.released = Some(kind.ok_or_else(|| bad("a release of unknown kind"))?);
            lease.holder = None;
            lease.expires_at = StoreTime::from_millis(release.at);
        } else if !self.is_held() {
            // Expired: etcd deleted the holder key. Its last renewal is all that is known.
            lease.expires_at = lease.expires_at.min(StoreTime::from_millis(now_ms()));
        }
        Ok(Some(lease))
    }

    /// Why the lease is free for a new term, and when the previous one ended; call only when it
    /// is not held.
    pub(crate) fn previous(&self, name: &LeaseName) -> Result<(ChangeReason, Option<StoreTime>)> {
        let Some(lease) = self.lease(name)? else {
            return Ok((ChangeReason::Fresh, None));
        };
        let reason = match lease.released {
            Some(ReleaseKind::Forced) => ChangeReason::ForcedRelease,
            Some(_) => ChangeReason::Handover,
            None => ChangeReason::ExpiredTakeover,
        };
        Ok((reason, Some(lease.term_end())))
    }

    /// The sequence number of the next history entry.
    pub(crate) fn next_seq(&self, name: &LeaseName) -> Result<u64> {
        let recorded = self.value(name)?.map_or(0, |value| value.seq);
        Ok(recorded.max(self.last_seq) + 1)
    }
}

/// A history entry as a leader change.
pub(crate) fn leader_change(kv: &KeyValue) -> Result<LeaderChange> {
    let lease = keys::name_in(&kv.key, keys::HISTORY)
        .ok_or_else(|| malformed(format!("history key {:?}", String::from_utf8_lossy(&kv.key))))?;
    let value: HistoryValue = parse(&lease, "history entry", &kv.value)?;
    let bad = |what: &str| malformed(format!("a history entry of lease {lease} has {what}"));
    Ok(LeaderChange {
        id: kv.create_revision,
        lease: lease.clone(),
        holder: HolderId::new(&value.holder).map_err(|_| bad("an invalid holder"))?,
        token: FencingToken::from_store(kv.create_revision)?,
        at: StoreTime::from_millis(value.at),
        reason: ChangeReason::parse(&value.reason).ok_or_else(|| bad("an unknown reason"))?,
        previous_end: value.ended.map(StoreTime::from_millis),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(revision: i64, value: &impl Serialize) -> Option<KeyValue> {
        Some(KeyValue {
            create_revision: revision,
            mod_revision: revision,
            value: encode(value),
            ..KeyValue::default()
        })
    }

    #[test]
    fn keys_of_an_earlier_term_are_ignored() {
        let name = LeaseName::new("job").unwrap();
        let record = RecordValue { holder: "a".into(), ttl_ms: 5000, at: 1000, seq: 3, lease: 7 };
        let state = State {
            record: kv(10, &record),
            holder: kv(10, &"a"),
            renewal: kv(8, &EventValue { at: 900, kind: None }),
            renewal_of: 7,
            release: kv(9, &EventValue { at: 950, kind: Some("graceful".into()) }),
            last_seq: 2,
        };
        let lease = state.lease(&name).unwrap().unwrap();
        assert_eq!(lease.token.get(), 10);
        assert_eq!(lease.renewed_at, StoreTime::from_millis(1000));
        assert_eq!(lease.expires_at, StoreTime::from_millis(6000));
        assert_eq!(lease.released, None);
        assert_eq!(state.next_seq(&name).unwrap(), 4);
    }

    #[test]
    fn only_the_renewal_of_the_etcd_lease_carrying_the_term_counts() {
        let name = LeaseName::new("job").unwrap();
        let record = RecordValue { holder: "a".into(), ttl_ms: 5000, at: 1000, seq: 1, lease: 7 };
        let mut state = State {
            record: kv(10, &record),
            holder: kv(10, &"a"),
            renewal: kv(12, &EventValue { at: 3000, kind: None }),
            renewal_of: 8,
            ..State::default()
        };
        assert_eq!(state.missing_renewal(), Some(7));
        assert_eq!(state.lease(&name).unwrap().unwrap().renewed_at, StoreTime::from_millis(1000));
        state.renewal_of = 7;
        assert_eq!(state.missing_renewal(), None);
        let lease = state.lease(&name).unwrap().unwrap();
        assert_eq!(lease.expires_at, StoreTime::from_millis(8000));
    }

    #[test]
    fn a_release_of_this_term_frees_the_lease_and_names_the_reason() {
        let name = LeaseName::new("job").unwrap();
        let record = RecordValue { holder: "a".into(), ttl_ms: 5000, at: 1000, seq: 1, lease: 7 };
        let state = State {
            record: kv(10, &record),
            renewal: kv(11, &EventValue { at: 2000, kind: None }),
            renewal_of: 7,
            release: kv(12, &EventValue { at: 2500, kind: Some("forced".into()) }),
            ..State::default()
        };
        let lease = state.lease(&name).unwrap().unwrap();
        assert_eq!((lease.holder, lease.released), (None, Some(ReleaseKind::Forced)));
        let (reason, ended) = state.previous(&name).unwrap();
        assert_eq!(reason, ChangeReason::ForcedRelease);
        assert_eq!(ended, Some(StoreTime::from_millis(2500)));
        assert_eq!(State::default().previous(&name).unwrap(), (ChangeReason::Fresh, None));
    }
}
