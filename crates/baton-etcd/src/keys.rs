//! Where leases live in etcd: every key starts with `baton/`, then the kind of key, then the
//! lease name.
//!
//! A history key ends in a space and the entry's sequence number, and an index key joins holder,
//! etcd lease and lease name with spaces: names hold no spaces, so the prefix of one lease or
//! holder never covers another's.

use baton_core::{HolderId, LeaseName};

/// The records: one per lease name ever acquired, never attached to an etcd lease.
pub(crate) const RECORDS: &str = "baton/record/";
/// The holder keys: one per held lease, attached to the holder's etcd lease.
pub(crate) const HOLDERS: &str = "baton/holder/";
/// The last renewal of each etcd lease that carries held leases, by its id.
pub(crate) const RENEWALS: &str = "baton/renewal/";
/// The index of held leases: one key per held lease under its holder and etcd lease, attached
/// to that etcd lease, so that a holder finds its leases with one range read.
pub(crate) const HELD: &str = "baton/held/";
/// The last release of each lease.
pub(crate) const RELEASES: &str = "baton/release/";
/// The leader-change history of every lease.
pub(crate) const HISTORY: &str = "baton/history/";

/// The keys of one lease.
pub(crate) struct LeaseKeys {
    /// Who acquired it, when, with which TTL; its last write is the latest acquisition, so
    /// its `mod_revision` is the latest token.
    pub(crate) record: Vec<u8>,
    /// Exists while the lease is held: created by the acquisition (its `create_revision` is
    /// the token), attached to the holder's etcd lease, deleted by a release or by etcd when
    /// that etcd lease expires.
    pub(crate) holder: Vec<u8>,
    /// How and when the lease was last released; it belongs to the current term when written
    /// after the record.
    pub(crate) release: Vec<u8>,
    /// The prefix of the lease's history entries.
    pub(crate) history: Vec<u8>,
}

impl LeaseKeys {
    /// The keys of the lease `name`.
    pub(crate) fn of(name: &LeaseName) -> LeaseKeys {
        let key = |kind: &str| format!("{kind}{name}").into_bytes();
        LeaseKeys {
            record: key(RECORDS),
            holder: key(HOLDERS),
            release: key(RELEASES),
            history: format!("{HISTORY}{name} ").into_bytes(),
        }
    }

    /// The history entry with sequence number `seq`.
    pub(crate) fn history_entry(&self, seq: u64) -> Vec<u8> {
        let mut key = self.history.clone();
        key.extend_from_slice(format!("{seq:020}").as_bytes());
        key
    }
}

/// The key recording the last renewal of the etcd lease `id`; it belongs to a lease's current
/// term when written after the term's record.
pub(crate) fn renewal(id: i64) -> Vec<u8> {
    format!("{RENEWALS}{id:016x}").into_bytes()
}

/// The etcd lease id in a renewal key.
pub(crate) fn renewal_id(key: &[u8]) -> Option<i64> {
    let hex = std::str::from_utf8(key.strip_prefix(RENEWALS.as_bytes())?).ok()?;
    u64::from_str_radix(hex, 16).ok().map(|id| id as i64)
}

/// The prefix of the index keys of every lease `holder` holds.
pub(crate) fn held_by(holder: &HolderId) -> Vec<u8> {
    format!("{HELD}{holder} ").into_bytes()
}

/// The prefix of the index keys of the leases `holder` holds on the etcd lease `id`.
pub(crate) fn held_on(holder: &HolderId, id: i64) -> Vec<u8> {
    format!("{HELD}{holder} {id:016x} ").into_bytes()
}

/// The index key of lease `name`, held by `holder` on the etcd lease `id`.
pub(crate) fn held(holder: &HolderId, id: i64, name: &LeaseName) -> Vec<u8> {
    let mut key = held_on(holder, id);
    key.extend_from_slice(name.as_str().as_bytes());
    key
}

/// The lease name at the end of an index key.
pub(crate) fn held_name(key: &[u8]) -> Option<LeaseName> {
    let text = std::str::from_utf8(key).ok()?;
    LeaseName::new(text.rsplit_once(' ')?.1).ok()
}

/// The lease name in `key`, a key of the kind `prefix`; history keys end at their space.
pub(crate) fn name_in(key: &[u8], prefix: &str) -> Option<LeaseName> {
    let rest = std::str::from_utf8(key.strip_prefix(prefix.as_bytes())?).ok()?;
    let name = rest.split_once(' ').map_or(rest, |(name, _)| name);
    LeaseName::new(name).ok()
}

/// The sequence number at the end of a history key.
pub(crate) fn history_seq(key: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(key).ok()?;
    text.rsplit_once(' ')?.1.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_name_their_lease_and_history_keys_their_sequence() {
        let name = LeaseName::new("a/b").unwrap();
        let keys = LeaseKeys::of(&name);
        assert_eq!(keys.holder, b"baton/holder/a/b");
        let entry = keys.history_entry(42);
        assert_eq!(entry, b"baton/history/a/b 00000000000000000042");
        assert_eq!(name_in(&entry, HISTORY), Some(name.clone()));
        assert_eq!(name_in(&keys.record, RECORDS), Some(name));
        assert_eq!(history_seq(&entry), Some(42));
        let other = LeaseKeys::of(&LeaseName::new("a").unwrap());
        assert!(!entry.starts_with(&other.history), "one lease's history never covers another's");
    }

    #[test]
    fn index_keys_sit_under_their_holder_and_etcd_lease() {
        let (holder, name) = (HolderId::new("node/1").unwrap(), LeaseName::new("a/b").unwrap());
        let key = held(&holder, 0x1f, &name);
        assert_eq!(key, b"baton/held/node/1 000000000000001f a/b");
        assert!(key.starts_with(&held_on(&holder, 0x1f)) && key.starts_with(&held_by(&holder)));
        assert_eq!(held_name(&key), Some(name));
        let other = HolderId::new("node/1x").unwrap();
        assert!(!held(&other, 0x1f, &LeaseName::new("c").unwrap()).starts_with(&held_by(&holder)));
        assert_eq!(renewal_id(&renewal(0x1f)), Some(0x1f));
        assert_eq!(renewal_id(&renewal(-2)), Some(-2), "ids keep their 64 bits");
    }
}
