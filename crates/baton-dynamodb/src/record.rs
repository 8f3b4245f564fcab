//! A lease item as baton reads and writes it.
//!
//! The item is never deleted by baton: a release clears `holder` and keeps the rest, so that
//! the next acquisition knows why the lease was free. `rev` rises with every write (a renewal
//! included): with the token it makes the record's version, which a contender watches stay
//! unchanged for the lease's duration before it judges the lease expired.

use std::time::Duration;

use baton_core::lease::TermRecord;
use baton_core::{FencingToken, HolderId, Lease, LeaseName, ReleaseKind, Result, StoreTime};

use crate::keys::{self, Item};

/// The time a holder writes: this process's wall clock, to the millisecond.
pub(crate) fn now() -> StoreTime {
    StoreTime::from_millis(jiff::Timestamp::now().as_millisecond())
}

/// A lease item read from the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Record {
    /// The holder, unless the lease was released.
    pub(crate) holder: Option<String>,
    /// The token of the latest acquisition.
    pub(crate) token: FencingToken,
    /// Raised by every write of the item.
    pub(crate) rev: u64,
    /// The term's duration.
    pub(crate) duration: Duration,
    pub(crate) acquired_at: StoreTime,
    pub(crate) renewed_at: StoreTime,
    pub(crate) released: Option<ReleaseKind>,
}

impl Record {
    /// Reads a lease item.
    pub(crate) fn read(item: &Item) -> Result<Record> {
        let holder = keys::get_s(item, keys::HOLDER)?.map(str::to_string);
        let released = match (&holder, keys::get_s(item, keys::RELEASED)?) {
            (Some(_), _) => None,
            (None, kind) => {
                Some(kind.and_then(ReleaseKind::parse).unwrap_or(ReleaseKind::Graceful))
            }
        };
        let millis = |attribute| keys::get_i64(item, attribute).map(Option::unwrap_or_default);
        Ok(Record {
            holder,
            token: FencingToken::new(keys::require_u64(item, keys::TOKEN)?)?,
            rev: keys::require_u64(item, keys::REV)?,
            duration: Duration::from_millis(keys::require_u64(item, keys::TTL_MS)?),
            acquired_at: StoreTime::from_millis(millis(keys::ACQUIRED_AT)?),
            renewed_at: StoreTime::from_millis(millis(keys::RENEWED_AT)?),
            released,
        })
    }

    /// The item's version: unique to this write, across a deletion of the item too (its token
    /// is then new).
    pub(crate) fn version(&self) -> String {
        format!("{}.{}", self.token, self.rev)
    }

    /// The lease as the record states it: held until its last renewal plus its duration, or
    /// released at its last write.
    pub(crate) fn lease(&self, name: &LeaseName) -> Result<Lease> {
        let holder = self.holder.as_deref().map(HolderId::new).transpose()?;
        let expires_at = match holder {
            Some(_) => self.renewed_at.saturating_add(self.duration),
            None => self.renewed_at,
        };
        Ok(Lease {
            name: name.clone(),
            holder,
            token: self.token,
            acquired_at: self.acquired_at,
            renewed_at: self.renewed_at,
            expires_at,
            ttl: self.duration,
            released: self.released,
        })
    }
}

impl TermRecord for Record {
    /// Whether `holder` holds the lease under `token` by this record.
    fn held_by(&self, holder: &HolderId, token: FencingToken) -> bool {
        self.holder.as_deref() == Some(holder.as_str()) && self.token == token
    }

    fn duration(&self) -> Duration {
        self.duration
    }
}

/// What an acquisition writes.
pub(crate) struct Grant<'a> {
    pub(crate) name: &'a LeaseName,
    pub(crate) holder: &'a HolderId,
    pub(crate) token: FencingToken,
    pub(crate) duration: Duration,
    pub(crate) now: StoreTime,
}

impl Grant<'_> {
    /// The whole lease item of the new term, `rev` one above `previous`'s.
    pub(crate) fn item(&self, previous: Option<&Record>) -> Item {
        let rev = previous.map_or(1, |record| record.rev + 1);
        let mut item = keys::lease(self.name.as_str());
        item.extend([
            (keys::HOLDER.to_string(), keys::s(self.holder.as_str())),
            (keys::TOKEN.to_string(), keys::n(self.token)),
            (keys::REV.to_string(), keys::n(rev)),
            (keys::TTL_MS.to_string(), keys::n(self.duration.as_millis())),
            (keys::ACQUIRED_AT.to_string(), keys::n(self.now.as_millis())),
            (keys::RENEWED_AT.to_string(), keys::n(self.now.as_millis())),
        ]);
        item
    }

    /// The record the item states.
    pub(crate) fn record(&self, previous: Option<&Record>) -> Record {
        Record {
            holder: Some(self.holder.to_string()),
            token: self.token,
            rev: previous.map_or(1, |record| record.rev + 1),
            duration: self.duration,
            acquired_at: self.now,
            renewed_at: self.now,
            released: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_granted_item_reads_back_as_its_record() {
        let (name, holder) = (LeaseName::new("job").unwrap(), HolderId::new("a").unwrap());
        let grant = Grant {
            name: &name,
            holder: &holder,
            token: FencingToken::new(7).unwrap(),
            duration: Duration::from_millis(1500),
            now: StoreTime::from_millis(1_700_000_000_123),
        };
        let previous = Record { rev: 4, ..grant.record(None) };
        let record = Record::read(&grant.item(Some(&previous))).unwrap();
        assert_eq!(record, grant.record(Some(&previous)));
        assert_eq!(record.version(), "7.5");
        let lease = record.lease(&name).unwrap();
        assert_eq!(lease.expires_at, StoreTime::from_millis(1_700_000_001_623));
        assert!(record.held_by(&holder, grant.token));
    }
}
