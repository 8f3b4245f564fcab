//! The KV store's operations, as Consul's state store applies them: a set, a check-and-set on
//! the `ModifyIndex`, a lock acquired or released by a session, deletions, and reads.

use std::time::Instant;

use super::state::{Entry, State};

/// How a `PUT` writes a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Write {
    /// Unconditionally (`PUT /v1/kv/KEY`).
    Set,
    /// Only if the key's `ModifyIndex` is this one, or for 0 only if the key does not exist.
    Cas(u64),
    /// Acquiring the key's lock for this session: refused if another session holds it or its
    /// lock-delay runs; the holding session may write it again, keeping its `LockIndex`.
    Acquire(String),
    /// Releasing the key's lock held by this session.
    Release(String),
}

/// A write Consul refuses with an error rather than `false`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Refused(pub(super) String);

impl State {
    /// Applies a `PUT` of `value` under `key`; whether it was applied.
    pub(super) fn kv_put(
        &mut self,
        key: &str,
        value: Vec<u8>,
        flags: u64,
        write: &Write,
        now: Instant,
    ) -> Result<bool, Refused> {
        let existing = self.kv.get(key).cloned();
        let (session, lock_index) = match write {
            Write::Set => (existing.as_ref().and_then(|e| e.session.clone()), None),
            Write::Cas(index) => {
                let matches = match &existing {
                    None => *index == 0,
                    Some(entry) => entry.modify_index == *index,
                };
                if !matches {
                    return Ok(false);
                }
                (existing.as_ref().and_then(|e| e.session.clone()), None)
            }
            Write::Acquire(id) => {
                if !self.sessions.contains_key(id) {
                    return Err(Refused(format!("invalid session {id:?}")));
                }
                if self.lock_delayed(key, now) {
                    return Ok(false);
                }
                let lock_index = match &existing {
                    Some(entry) if entry.session.as_deref() == Some(id.as_str()) => {
                        entry.lock_index
                    }
                    Some(entry) if entry.session.is_some() => return Ok(false),
                    Some(entry) => entry.lock_index + 1,
                    None => 1,
                };
                (Some(id.clone()), Some(lock_index))
            }
            Write::Release(id) => match &existing {
                Some(entry) if entry.session.as_deref() == Some(id.as_str()) => (None, None),
                _ => return Ok(false),
            },
        };
        let index = self.next_index();
        let entry = Entry {
            create_index: existing.as_ref().map_or(index, |e| e.create_index),
            modify_index: index,
            lock_index: lock_index.unwrap_or_else(|| existing.as_ref().map_or(0, |e| e.lock_index)),
            flags,
            value,
            session,
        };
        self.put_entry(key, entry, index);
        Ok(true)
    }

    /// Applies a `DELETE` of `key` (or of every key under it, with `recurse`), only if its
    /// `ModifyIndex` is `cas` when given; whether it was applied.
    pub(super) fn kv_delete(&mut self, key: &str, recurse: bool, cas: Option<u64>) -> bool {
        if let Some(cas) = cas {
            match self.kv.get(key) {
                Some(entry) if entry.modify_index == cas => {}
                None if cas == 0 => return true,
                _ => return false,
            }
        }
        let keys: Vec<String> = match recurse {
            true => self.kv.keys().filter(|k| k.starts_with(key)).cloned().collect(),
            false => self.kv.contains_key(key).then(|| key.to_string()).into_iter().collect(),
        };
        let index = self.next_index();
        for key in keys {
            self.delete_entry(&key, index);
        }
        true
    }

    /// The entries a `GET` of `key` answers: the key itself, or every key under it with
    /// `recurse`, in key order.
    pub(super) fn kv_read(&self, key: &str, recurse: bool) -> Vec<(String, Entry)> {
        match recurse {
            true => self
                .kv
                .range(key.to_string()..)
                .take_while(|(k, _)| k.starts_with(key))
                .map(|(k, e)| (k.clone(), e.clone()))
                .collect(),
            false => self.kv.get(key).map(|e| (key.to_string(), e.clone())).into_iter().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::state::{Behavior, Session};
    use super::*;

    fn session(state: &mut State, id: &str, lock_delay: Duration) {
        let create_index = state.next_index();
        let session = Session {
            name: String::new(),
            ttl: Duration::from_secs(10),
            behavior: Behavior::Release,
            lock_delay,
            node_checks: Vec::new(),
            create_index,
            deadline: None,
        };
        state.sessions.insert(id.to_string(), session);
    }

    #[test]
    fn a_lock_goes_to_one_session_and_its_index_counts_acquisitions() {
        let (mut state, now) = (State::default(), Instant::now());
        session(&mut state, "a", Duration::ZERO);
        session(&mut state, "b", Duration::ZERO);
        let acquire = |id: &str| Write::Acquire(id.to_string());
        assert_eq!(state.kv_put("k", b"1".to_vec(), 0, &acquire("a"), now), Ok(true));
        assert_eq!(state.kv_put("k", b"2".to_vec(), 0, &acquire("b"), now), Ok(false));
        assert_eq!(state.kv_put("k", b"3".to_vec(), 0, &acquire("a"), now), Ok(true));
        let entry = state.kv["k"].clone();
        assert_eq!((entry.lock_index, entry.value.as_slice()), (1, &b"3"[..]));
        assert_eq!(state.kv_put("k", vec![], 0, &Write::Release("b".into()), now), Ok(false));
        assert_eq!(state.kv_put("k", vec![], 0, &Write::Release("a".into()), now), Ok(true));
        assert_eq!(state.kv_put("k", vec![], 0, &acquire("b"), now), Ok(true));
        assert_eq!(state.kv["k"].lock_index, 2);
        let refused = state.kv_put("k", vec![], 0, &acquire("gone"), now);
        assert!(refused.is_err());
    }

    #[test]
    fn an_invalidated_session_releases_its_keys_behind_its_lock_delay() {
        let (mut state, now) = (State::default(), Instant::now());
        session(&mut state, "a", Duration::from_secs(15));
        session(&mut state, "b", Duration::ZERO);
        state.kv_put("k", b"v".to_vec(), 0, &Write::Acquire("a".into()), now).unwrap();
        let before = state.kv["k"].modify_index;
        assert!(state.invalidate("a", now));
        let entry = state.kv["k"].clone();
        assert_eq!((entry.session, entry.value.as_slice()), (None, &b"v"[..]));
        assert!(entry.modify_index > before);
        let acquire = Write::Acquire("b".into());
        assert_eq!(state.kv_put("k", vec![], 0, &acquire, now), Ok(false));
        let later = now + Duration::from_secs(15);
        assert_eq!(state.kv_put("k", vec![], 0, &acquire, later), Ok(true));
    }

    #[test]
    fn check_and_set_and_deletions_follow_the_modify_index() {
        let (mut state, now) = (State::default(), Instant::now());
        assert_eq!(state.kv_put("k", vec![], 0, &Write::Cas(0), now), Ok(true));
        assert_eq!(state.kv_put("k", vec![], 0, &Write::Cas(0), now), Ok(false));
        let index = state.kv["k"].modify_index;
        assert!(!state.kv_delete("k", false, Some(index + 1)));
        assert!(state.kv_delete("k", false, Some(index)));
        assert!(state.kv_read("k", false).is_empty());
        assert!(state.read_index("k", true) > index, "a deletion raises the prefix's index");
    }
}
