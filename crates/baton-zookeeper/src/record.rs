//! What the nodes of a lease hold, and the [`Lease`] they describe.
//!
//! The record node's data says who holds or held the lease, its TTL and whether the term ended.
//! While a term runs, the record's `mzxid` is the term's token and its `mtime` the acquisition
//! (the acquisition wrote both nodes in one transaction, and nothing writes the record again
//! until the term ends); the term node's `mtime` is the last renewal. Once a term ends, the
//! record keeps its token and instants in its data.

use std::time::Duration;

use baton_core::{
    ChangeReason, Error, ErrorKind, FencingToken, HolderId, LeaderChange, Lease, LeaseName,
    ReleaseKind, Result, StoreTime,
};
use serde::{Deserialize, Serialize};
use zookeeper_client::Stat;

/// What a conditional write needs of a term node: its data version and last modification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Term {
    pub(crate) version: i32,
    pub(crate) mtime: i64,
}

impl From<&Stat> for Term {
    fn from(stat: &Stat) -> Self {
        Term { version: stat.version, mtime: stat.mtime }
    }
}

/// How the latest term stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum State {
    /// Running, unless its term node is gone (its holder's session ended) or it lapsed.
    Held,
    /// Released by its holder.
    Graceful,
    /// Released by an operator.
    Forced,
    /// Lapsed: a renewal came after the expiry and ended it.
    Expired,
}

/// The token and instants of a term that ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Ended {
    pub(crate) token: u64,
    pub(crate) acquired_at: i64,
    pub(crate) renewed_at: i64,
}

/// The data of a lease's record node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Record {
    /// Acquisitions so far; the latest change record is numbered so.
    pub(crate) generation: u64,
    /// The holder of the latest term.
    pub(crate) holder: String,
    /// The latest term's TTL, in milliseconds.
    pub(crate) ttl_ms: u64,
    pub(crate) state: State,
    /// Set once the latest term ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) ended: Option<Ended>,
}

/// The data of a change record: the node's `czxid` is the token, its `ctime` the instant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Change {
    pub(crate) holder: String,
    pub(crate) reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) previous_end: Option<i64>,
}

/// Data baton cannot read: a bug, or nodes written by something else.
pub(crate) fn malformed(what: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::Internal, format!("unexpected data in ZooKeeper: {what}"))
}

pub(crate) fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}

pub(crate) fn decode<'a, T: Deserialize<'a>>(path: &str, data: &'a [u8]) -> Result<T> {
    serde_json::from_slice(data).map_err(|err| malformed(format!("{path}: {err}")))
}

fn token(zxid: i64) -> Result<FencingToken> {
    FencingToken::from_store(zxid)
}

/// A lease as its nodes show it, with what a conditional write needs.
#[derive(Debug, Clone)]
pub(crate) struct Current {
    pub(crate) record: Record,
    /// The record node's data version.
    pub(crate) version: i32,
    /// The term node, if it exists.
    pub(crate) term: Option<Term>,
    pub(crate) lease: Lease,
}

impl Current {
    /// Reads a lease from its record node and its term node (if any).
    pub(crate) fn new(
        name: &LeaseName,
        record: Record,
        stat: &Stat,
        term: Option<Term>,
    ) -> Result<Current> {
        let ttl = Duration::from_millis(record.ttl_ms);
        let holder = HolderId::new(&record.holder).map_err(malformed)?;
        let lease = match (record.state, record.ended) {
            (State::Held, _) => {
                let acquired_at = StoreTime::from_millis(stat.mtime);
                let renewed_at = term.map_or(acquired_at, |t| StoreTime::from_millis(t.mtime));
                Lease {
                    name: name.clone(),
                    holder: Some(holder),
                    token: token(stat.mzxid)?,
                    acquired_at,
                    renewed_at,
                    expires_at: renewed_at.saturating_add(ttl),
                    ttl,
                    released: None,
                }
            }
            (state, Some(ended)) => {
                let renewed_at = StoreTime::from_millis(ended.renewed_at);
                let released = match state {
                    State::Graceful => Some(ReleaseKind::Graceful),
                    State::Forced => Some(ReleaseKind::Forced),
                    _ => None,
                };
                Lease {
                    name: name.clone(),
                    holder: released.is_none().then_some(holder),
                    token: token(i64::try_from(ended.token).unwrap_or(i64::MAX))?,
                    acquired_at: StoreTime::from_millis(ended.acquired_at),
                    renewed_at,
                    expires_at: match released {
                        Some(_) => StoreTime::from_millis(stat.mtime),
                        None => renewed_at.saturating_add(ttl),
                    },
                    ttl,
                    released,
                }
            }
            (_, None) => {
                return Err(malformed(format!("lease {name}: an ended term without data")));
            }
        };
        Ok(Current { record, version: stat.version, term, lease })
    }

    /// Whether `holder` holds this term under `token` (expiry aside): the record says so and
    /// the term node exists.
    pub(crate) fn holds(&self, holder: &HolderId, token: FencingToken) -> bool {
        self.record.state == State::Held
            && self.term.is_some()
            && self.lease.holder.as_ref() == Some(holder)
            && self.lease.token == token
    }

    /// Whether a held term's node is gone: its holder's session ended.
    pub(crate) fn session_ended(&self) -> bool {
        self.record.state == State::Held && self.term.is_none()
    }

    /// Why the lease is free for the next holder, and when the previous term ended (unknown
    /// when the holder's session ended: its last renewal went with its term node).
    pub(crate) fn next_reason(&self) -> (ChangeReason, Option<StoreTime>) {
        let reason = match self.lease.released {
            Some(ReleaseKind::Forced) => ChangeReason::ForcedRelease,
            Some(ReleaseKind::Graceful) => ChangeReason::Handover,
            _ => ChangeReason::ExpiredTakeover,
        };
        let end = (!self.session_ended()).then(|| self.lease.term_end());
        (reason, end)
    }

    /// The record after the latest term ended in `state`, keeping its token and instants.
    pub(crate) fn ended(&self, state: State) -> Record {
        Record {
            state,
            ended: Some(Ended {
                token: self.lease.token.get(),
                acquired_at: self.lease.acquired_at.as_millis(),
                renewed_at: self.lease.renewed_at.as_millis(),
            }),
            ..self.record.clone()
        }
    }
}

/// A leader change from its node.
pub(crate) fn leader_change(
    name: &LeaseName,
    path: &str,
    data: &[u8],
    stat: &Stat,
) -> Result<LeaderChange> {
    let change: Change = decode(path, data)?;
    Ok(LeaderChange {
        id: stat.czxid,
        lease: name.clone(),
        holder: HolderId::new(&change.holder).map_err(malformed)?,
        token: token(stat.czxid)?,
        at: StoreTime::from_millis(stat.ctime),
        reason: ChangeReason::parse(&change.reason)
            .ok_or_else(|| malformed(format!("{path}: reason {}", change.reason)))?,
        previous_end: change.previous_end.map(StoreTime::from_millis),
    })
}
