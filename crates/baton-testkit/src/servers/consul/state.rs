//! The emulated Consul's state, as its raft log would keep it: one index that every write
//! raises, the KV entries (and the index at which each deleted key went away), the sessions, and
//! the lock-delays of keys whose session was invalidated.

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

/// A KV entry, with the indexes Consul keeps on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Entry {
    pub(super) create_index: u64,
    pub(super) modify_index: u64,
    /// How many times a session acquired the key (starts at 1 on a key created by an acquire).
    pub(super) lock_index: u64,
    pub(super) flags: u64,
    pub(super) value: Vec<u8>,
    /// The session holding the key's lock.
    pub(super) session: Option<String>,
}

/// What happens to a session's keys when it is invalidated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Behavior {
    /// The lock is released; the key and its value stay.
    Release,
    /// The key is deleted.
    Delete,
}

impl Behavior {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Behavior::Release => "release",
            Behavior::Delete => "delete",
        }
    }
}

/// A session.
#[derive(Debug, Clone)]
pub(super) struct Session {
    pub(super) name: String,
    /// Zero for a session without a TTL.
    pub(super) ttl: Duration,
    pub(super) behavior: Behavior,
    pub(super) lock_delay: Duration,
    pub(super) node_checks: Vec<String>,
    pub(super) create_index: u64,
    /// When the TTL runs out unless renewed (never for a session without a TTL).
    pub(super) deadline: Option<Instant>,
}

impl Session {
    /// The deadline of a session whose TTL timer starts at `now`.
    pub(super) fn deadline_from(&self, now: Instant) -> Option<Instant> {
        (!self.ttl.is_zero()).then(|| now + self.ttl)
    }
}

/// Everything the emulated server keeps.
#[derive(Debug, Default)]
pub(super) struct State {
    /// The raft index: raised by every write.
    pub(super) index: u64,
    /// The index of the last change of any KV entry (a write or a deletion).
    pub(super) kv_index: u64,
    pub(super) kv: BTreeMap<String, Entry>,
    /// The index at which each deleted key went away.
    pub(super) tombstones: BTreeMap<String, u64>,
    pub(super) sessions: HashMap<String, Session>,
    /// Keys that no session may acquire before the instant (their holder was invalidated).
    pub(super) lock_delays: HashMap<String, Instant>,
}

impl State {
    /// Raises the raft index for a write; returns the new index.
    pub(super) fn next_index(&mut self) -> u64 {
        self.index += 1;
        self.index
    }

    /// Stores `entry` under `key` at `index`.
    pub(super) fn put_entry(&mut self, key: &str, entry: Entry, index: u64) {
        self.tombstones.remove(key);
        self.kv.insert(key.to_string(), entry);
        self.kv_index = index;
    }

    /// Deletes `key` at `index`; whether it existed.
    pub(super) fn delete_entry(&mut self, key: &str, index: u64) -> bool {
        let existed = self.kv.remove(key).is_some();
        if existed {
            self.tombstones.insert(key.to_string(), index);
            self.kv_index = index;
        }
        existed
    }

    /// The index a read of `key` (or of every key under it, with `recurse`) reports: for one key
    /// the index of the last change of any key, as Consul's; for a prefix the last change under
    /// it, or of any key if none; never 0.
    pub(super) fn read_index(&self, key: &str, recurse: bool) -> u64 {
        let under = |k: &String| k.starts_with(key);
        let own = match recurse {
            true => {
                let live = self.kv.iter().filter(|(k, _)| under(k)).map(|(_, e)| e.modify_index);
                let gone = self.tombstones.iter().filter(|(k, _)| under(k)).map(|(_, i)| *i);
                live.chain(gone).max().unwrap_or(0)
            }
            false => 0,
        };
        match own {
            0 => self.kv_index.max(1),
            own => own,
        }
    }

    /// Invalidates the session `id` at `now` (destroyed, or its TTL ran out): its keys are
    /// released or deleted as its behavior says, and none may be acquired again for its
    /// lock-delay. Whether the session existed.
    pub(super) fn invalidate(&mut self, id: &str, now: Instant) -> bool {
        let Some(session) = self.sessions.remove(id) else { return false };
        let index = self.next_index();
        let held: Vec<String> = self
            .kv
            .iter()
            .filter(|(_, entry)| entry.session.as_deref() == Some(id))
            .map(|(key, _)| key.clone())
            .collect();
        for key in held {
            if !session.lock_delay.is_zero() {
                self.lock_delays.insert(key.clone(), now + session.lock_delay);
            }
            match session.behavior {
                Behavior::Delete => {
                    self.delete_entry(&key, index);
                }
                Behavior::Release => {
                    if let Some(mut entry) = self.kv.get(&key).cloned() {
                        entry.session = None;
                        entry.modify_index = index;
                        self.put_entry(&key, entry, index);
                    }
                }
            }
        }
        true
    }

    /// Invalidates every session whose TTL ran out by `now`; whether any was.
    pub(super) fn expire(&mut self, now: Instant) -> bool {
        let expired: Vec<String> = self
            .sessions
            .iter()
            .filter(|(_, session)| session.deadline.is_some_and(|deadline| deadline <= now))
            .map(|(id, _)| id.clone())
            .collect();
        for id in &expired {
            self.invalidate(id, now);
        }
        !expired.is_empty()
    }

    /// Starts every session's TTL timer again at `now`, as a newly elected leader does.
    pub(super) fn reset_timers(&mut self, now: Instant) {
        for session in self.sessions.values_mut() {
            session.deadline = session.deadline_from(now);
        }
    }

    /// Whether `key` may not be acquired at `now` (its lock-delay runs).
    pub(super) fn lock_delayed(&self, key: &str, now: Instant) -> bool {
        self.lock_delays.get(key).is_some_and(|until| *until > now)
    }
}
