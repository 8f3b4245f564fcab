//! A lease blob's record: the term in its metadata (token, holder, duration, times, how it
//! ended) and the latest leader changes in its content.
//!
//! A term is first *claimed* (its token and holder written under the blob's ETag while the
//! blob is not leased), then the service's lease is acquired under the claim's ETag, then the
//! term is *confirmed* under that lease (its acquisition time and a leader change written). A
//! claim that never got the lease carries the reason and previous end of the term before it,
//! so that the next claim records them.

use std::collections::BTreeMap;
use std::time::Duration;

use baton_core::{
    ChangeReason, Error, ErrorKind, FencingToken, HolderId, LeaderChange, Lease, LeaseName,
    ReleaseKind, Result, StoreTime,
};
use serde::{Deserialize, Serialize};

use crate::client::LeaseState;
use crate::names;

/// Leader changes kept on each lease blob, newest last.
pub const HISTORY_LENGTH: usize = 32;

const TOKEN: &str = "batontoken";
const HOLDER: &str = "batonholder";
const TTL: &str = "batonttl";
const CLAIMED: &str = "batonclaimed";
const ACQUIRED: &str = "batonacquired";
const RENEWED: &str = "batonrenewed";
const RELEASED: &str = "batonreleased";
const RELEASED_AT: &str = "batonreleasedat";
const REASON: &str = "batonreason";
const PREVIOUS_END: &str = "batonpreviousend";

/// The term a lease blob's metadata describes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Record {
    /// The latest token issued (or the epoch's base on a blob never claimed).
    pub(crate) token: u64,
    /// The holder of the latest claim; `None` on a blob never claimed.
    pub(crate) holder: Option<HolderId>,
    /// The term's duration.
    pub(crate) ttl: Duration,
    /// The service's clock when the claim was decided.
    pub(crate) claimed_at: StoreTime,
    /// When the service granted the lease; `None` until the term is confirmed.
    pub(crate) acquired_at: Option<StoreTime>,
    /// The service's clock at the last renewal.
    pub(crate) renewed_at: Option<StoreTime>,
    /// How and when the term was released, once it was.
    pub(crate) released: Option<(ReleaseKind, StoreTime)>,
    /// Why the lease was free for this term.
    pub(crate) reason: ChangeReason,
    /// When the term before ended.
    pub(crate) previous_end: Option<StoreTime>,
}

fn corrupt(field: &str, value: &str) -> Error {
    Error::new(ErrorKind::Internal, format!("lease blob metadata {field}={value} is not baton's"))
}

fn millis(metadata: &BTreeMap<String, String>, field: &str) -> Result<Option<StoreTime>> {
    metadata
        .get(field)
        .map(|value| value.parse().map(StoreTime::from_millis).map_err(|_| corrupt(field, value)))
        .transpose()
}

impl Record {
    /// The record of a blob created for a fresh lease whose tokens start above `base`.
    pub(crate) fn fresh(base: u64, now: StoreTime) -> Record {
        Record {
            token: base,
            holder: None,
            ttl: Duration::ZERO,
            claimed_at: now,
            acquired_at: None,
            renewed_at: None,
            released: None,
            reason: ChangeReason::Fresh,
            previous_end: None,
        }
    }

    /// Reads a blob's metadata.
    pub(crate) fn read(metadata: &BTreeMap<String, String>) -> Result<Record> {
        let text = |field: &str| metadata.get(field).map(String::as_str);
        let token = text(TOKEN).unwrap_or("0");
        let token = token.parse().map_err(|_| corrupt(TOKEN, token))?;
        let holder = match text(HOLDER) {
            Some(value) => Some(
                names::unescape(value)
                    .and_then(|holder| HolderId::new(holder).ok())
                    .ok_or_else(|| corrupt(HOLDER, value))?,
            ),
            None => None,
        };
        let ttl = text(TTL).unwrap_or("0");
        let ttl = Duration::from_secs(ttl.parse().map_err(|_| corrupt(TTL, ttl))?);
        let released = match (text(RELEASED), millis(metadata, RELEASED_AT)?) {
            (Some(kind), Some(at)) => {
                Some((ReleaseKind::parse(kind).ok_or_else(|| corrupt(RELEASED, kind))?, at))
            }
            _ => None,
        };
        let reason = text(REASON).unwrap_or("fresh");
        Ok(Record {
            token,
            holder,
            ttl,
            claimed_at: millis(metadata, CLAIMED)?.unwrap_or(StoreTime::from_millis(0)),
            acquired_at: millis(metadata, ACQUIRED)?,
            renewed_at: millis(metadata, RENEWED)?,
            released,
            reason: ChangeReason::parse(reason).ok_or_else(|| corrupt(REASON, reason))?,
            previous_end: millis(metadata, PREVIOUS_END)?,
        })
    }

    /// The metadata that stores this record.
    pub(crate) fn metadata(&self) -> BTreeMap<String, String> {
        let mut metadata = BTreeMap::new();
        let mut put = |field: &str, value: String| metadata.insert(field.to_string(), value);
        put(TOKEN, self.token.to_string());
        put(TTL, self.ttl.as_secs().to_string());
        put(CLAIMED, self.claimed_at.as_millis().to_string());
        put(REASON, self.reason.as_str().to_string());
        if let Some(holder) = &self.holder {
            put(HOLDER, names::escape(holder.as_str()));
        }
        for (field, time) in [
            (ACQUIRED, self.acquired_at),
            (RENEWED, self.renewed_at),
            (PREVIOUS_END, self.previous_end),
        ] {
            if let Some(time) = time {
                put(field, time.as_millis().to_string());
            }
        }
        if let Some((kind, at)) = self.released {
            put(RELEASED, kind.as_str().to_string());
            put(RELEASED_AT, at.as_millis().to_string());
        }
        metadata
    }

    /// Whether this is the confirmed term of `holder` under `token`.
    pub(crate) fn term_of(&self, holder: &HolderId, token: FencingToken) -> bool {
        self.acquired_at.is_some()
            && self.holder.as_ref() == Some(holder)
            && self.token == token.get()
    }

    /// Whether this is a claim (confirmed or not) of `holder` under `token`.
    pub(crate) fn claim_of(&self, holder: &HolderId, token: u64) -> bool {
        self.holder.as_ref() == Some(holder) && self.token == token
    }

    /// The claim of a new term following this record: the next token, for `holder`, decided
    /// at `now` while the blob's lease was in `state` (not held).
    pub(crate) fn claim(
        &self,
        state: LeaseState,
        holder: &HolderId,
        ttl: Duration,
        now: StoreTime,
    ) -> Record {
        let (reason, previous_end) = self.next_reason(state);
        Record {
            token: self.token + 1,
            holder: Some(holder.clone()),
            ttl,
            claimed_at: now,
            acquired_at: None,
            renewed_at: None,
            released: None,
            reason,
            previous_end,
        }
    }

    /// Why the lease is free for the next term, and when the term before ended.
    fn next_reason(&self, state: LeaseState) -> (ChangeReason, Option<StoreTime>) {
        let (Some(_), Some(renewed)) = (&self.holder, self.renewed_at) else {
            // Never claimed, or a claim that never got the lease: what it had decided stands.
            return (self.reason, self.previous_end);
        };
        match (self.released, state) {
            (Some((ReleaseKind::Graceful, at)), _) => (ChangeReason::Handover, Some(at)),
            (Some((_, at)), _) => (ChangeReason::ForcedRelease, Some(at)),
            (None, LeaseState::Broken) => (ChangeReason::ForcedRelease, Some(renewed)),
            (None, LeaseState::Available) => (ChangeReason::Handover, Some(renewed)),
            (None, _) => (ChangeReason::ExpiredTakeover, Some(renewed)),
        }
    }

    /// The confirmed term: granted by the service at `at`.
    pub(crate) fn confirmed(&self, at: StoreTime) -> Record {
        Record { acquired_at: Some(at), renewed_at: Some(at), ..self.clone() }
    }

    /// The leader change this confirmed term records.
    pub(crate) fn change(&self) -> Option<Change> {
        Some(Change {
            token: self.token,
            holder: self.holder.as_ref()?.as_str().to_string(),
            at: self.acquired_at?.as_millis(),
            reason: self.reason.as_str().to_string(),
            previous_end: self.previous_end.map(StoreTime::as_millis),
        })
    }

    /// The lease as the service's lease `state` and this record describe it; `None` for a blob
    /// never claimed.
    pub(crate) fn lease(&self, name: &LeaseName, state: LeaseState) -> Result<Option<Lease>> {
        let Some(holder) = &self.holder else { return Ok(None) };
        let token = FencingToken::new(self.token)?;
        let acquired_at = self.acquired_at.unwrap_or(self.claimed_at);
        let renewed_at = self.renewed_at.unwrap_or(acquired_at);
        let lease = Lease {
            name: name.clone(),
            holder: Some(holder.clone()),
            token,
            acquired_at,
            renewed_at,
            expires_at: renewed_at.saturating_add(self.ttl),
            ttl: self.ttl,
            released: None,
        };
        let free = |released, at| Lease { holder: None, released, expires_at: at, ..lease.clone() };
        Ok(Some(match (state, self.released) {
            (LeaseState::Leased | LeaseState::Breaking, _) => lease,
            (_, Some((kind, at))) => free(Some(kind), at),
            (_, None) if self.acquired_at.is_none() => free(None, self.claimed_at),
            (LeaseState::Broken, None) => free(Some(ReleaseKind::Forced), renewed_at),
            (LeaseState::Available, None) => free(Some(ReleaseKind::Graceful), renewed_at),
            (LeaseState::Expired, None) => lease,
        }))
    }
}

/// One leader change as a lease blob's content keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Change {
    token: u64,
    holder: String,
    at: i64,
    reason: String,
    #[serde(default)]
    previous_end: Option<i64>,
}

impl Change {
    /// The change as the store's API reports it; its position is its token.
    pub(crate) fn leader_change(&self, name: &LeaseName) -> Result<LeaderChange> {
        let reason = ChangeReason::parse(&self.reason)
            .ok_or_else(|| corrupt("history reason", &self.reason))?;
        Ok(LeaderChange {
            id: i64::try_from(self.token)
                .map_err(|_| corrupt("history token", &self.token.to_string()))?,
            lease: name.clone(),
            holder: HolderId::new(self.holder.clone())?,
            token: FencingToken::new(self.token)?,
            at: StoreTime::from_millis(self.at),
            reason,
            previous_end: self.previous_end.map(StoreTime::from_millis),
        })
    }
}

/// The leader changes in a blob's content (none if it holds none).
pub(crate) fn history(content: &[u8]) -> Result<Vec<Change>> {
    if content.is_empty() {
        return Ok(Vec::new());
    }
    serde_json::from_slice(content).map_err(|err| {
        Error::new(ErrorKind::Internal, format!("lease blob content is not baton's history: {err}"))
    })
}

/// The content after `change`: the latest [`HISTORY_LENGTH`] changes.
pub(crate) fn with_change(mut changes: Vec<Change>, change: Change) -> Vec<u8> {
    changes.push(change);
    let excess = changes.len().saturating_sub(HISTORY_LENGTH);
    changes.drain(..excess);
    serde_json::to_vec(&changes).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(secs: i64) -> StoreTime {
        StoreTime::from_millis(secs * 1000)
    }

    #[test]
    fn a_record_round_trips_through_metadata() {
        let holder = HolderId::new("node/정산").unwrap();
        let claim = Record::fresh(4 << 32, t(1)).claim(
            LeaseState::Available,
            &holder,
            Duration::from_secs(15),
            t(2),
        );
        let confirmed = claim.confirmed(t(3));
        assert_eq!(Record::read(&confirmed.metadata()).unwrap(), confirmed);
        assert_eq!(confirmed.token, (4 << 32) + 1);
        assert_eq!(confirmed.reason, ChangeReason::Fresh);
        assert!(confirmed.metadata().values().all(|value| value.is_ascii()));
    }

    #[test]
    fn the_next_reason_follows_how_the_term_ended() {
        let holder = HolderId::new("a").unwrap();
        let ttl = Duration::from_secs(15);
        let term =
            Record::fresh(0, t(0)).claim(LeaseState::Available, &holder, ttl, t(1)).confirmed(t(1));
        let next = |record: &Record, state| record.claim(state, &holder, ttl, t(40));
        assert_eq!(next(&term, LeaseState::Expired).reason, ChangeReason::ExpiredTakeover);
        assert_eq!(next(&term, LeaseState::Broken).reason, ChangeReason::ForcedRelease);
        let released = Record { released: Some((ReleaseKind::Graceful, t(5))), ..term.clone() };
        let handover = next(&released, LeaseState::Available);
        assert_eq!((handover.reason, handover.previous_end), (ChangeReason::Handover, Some(t(5))));
        let unconfirmed = next(&released, LeaseState::Available);
        let over_it = next(&unconfirmed, LeaseState::Available);
        assert_eq!((over_it.reason, over_it.previous_end), (ChangeReason::Handover, Some(t(5))));
        assert_eq!(over_it.token, term.token + 2);
    }

    #[test]
    fn history_keeps_the_latest_changes() {
        let mut content = Vec::new();
        for token in 1..=40u64 {
            let change = Change {
                token,
                holder: "h".into(),
                at: 0,
                reason: "fresh".into(),
                previous_end: None,
            };
            content = with_change(history(&content).unwrap(), change);
        }
        let changes = history(&content).unwrap();
        assert_eq!(changes.len(), HISTORY_LENGTH);
        assert_eq!(changes.last().unwrap().token, 40);
    }
}
