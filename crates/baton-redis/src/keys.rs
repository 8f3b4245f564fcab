//! Where leases live in Redis.
//!
//! Every key of one lease carries the hash tag `{lease:<name>}`, so all of them fall in one
//! hash slot and each lease script touches a single slot (what Redis Cluster would require).
//! The tag starts with `lease:` so that it is never empty, even for a name that starts with
//! `}`. The index of names is the one key outside those slots; it is written by its own command,
//! never by a lease script.

use baton_core::LeaseName;

/// The sorted set of every lease name ever acquired (all scores 0, so ordered by name).
pub(crate) const INDEX: &str = "baton:leases";

/// The keys of one lease.
pub(crate) struct LeaseKeys {
    /// The lease record: a hash.
    pub(crate) record: String,
    /// The highest token issued: a string, never deleted by baton.
    pub(crate) token: String,
    /// The leader-change history: a stream whose entry ids are `<token>-0`.
    pub(crate) history: String,
    /// Set while a refused contender waits for a release, with a TTL.
    pub(crate) waiters: String,
}

impl LeaseKeys {
    /// The keys of the lease `name`.
    pub(crate) fn of(name: &LeaseName) -> Self {
        let key = |part: &str| format!("baton:{{lease:{name}}}:{part}");
        LeaseKeys {
            record: key("record"),
            token: key("token"),
            history: key("history"),
            waiters: key("waiters"),
        }
    }
}

/// The pub/sub channel on which releases in database `db` are announced; the payload is the
/// lease name. Channels are shared by all databases of a server, hence the index in the name.
pub(crate) fn release_channel(db: i64) -> String {
    format!("baton:released:{db}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hash tag Redis Cluster would hash: the text between the first `{` and the first `}`
    /// after it, when that text is not empty.
    fn hash_tag(key: &str) -> &str {
        let open = key.find('{').expect("a tag");
        let close = key[open + 1..].find('}').expect("a closed tag") + open + 1;
        &key[open + 1..close]
    }

    #[test]
    fn every_key_of_a_lease_shares_one_non_empty_hash_tag() {
        for name in ["settlement", "}odd", "a{b}c", "{}", "정산"] {
            let keys = LeaseKeys::of(&LeaseName::new(name).unwrap());
            let tag = hash_tag(&keys.record);
            assert!(!tag.is_empty(), "{name}");
            for key in [&keys.token, &keys.history, &keys.waiters] {
                assert_eq!(hash_tag(key), tag, "{name}: {key}");
            }
        }
    }
}
