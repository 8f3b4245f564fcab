//! What a process remembers about each lease (the terms its store wrote, the versions it saw),
//! bounded so that a process touching ever new leases does not grow without end.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

/// Entries beyond which everything is forgotten.
const MAX_REMEMBERED: usize = 4096;

/// What this process remembers about each lease, by name, bounded: beyond 4096 entries it
/// forgets everything, and a forgotten entry costs the caller one read.
pub struct Remembered<V> {
    entries: Mutex<HashMap<String, V>>,
}

impl<V> Default for Remembered<V> {
    fn default() -> Self {
        Self { entries: Mutex::default() }
    }
}

impl<V: Clone> Remembered<V> {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, V>> {
        // A panic while the lock is held (in a caller's closure) leaves the map whole: every
        // change is one map operation.
        self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// What is remembered about lease `name`.
    pub fn get(&self, name: &str) -> Option<V> {
        self.lock().get(name).cloned()
    }

    /// Remembers `value` about lease `name`, in place of what was (everything is forgotten
    /// first if the memory is full).
    pub fn remember(&self, name: &str, value: V) {
        insert(&mut self.lock(), name, value);
    }

    /// Forgets what is remembered about lease `name` if `forget` holds for it.
    pub fn forget_if(&self, name: &str, forget: impl FnOnce(&V) -> bool) {
        let mut entries = self.lock();
        if entries.get(name).is_some_and(forget) {
            entries.remove(name);
        }
    }

    /// What is remembered about lease `name` if `keep` holds for it; otherwise `fresh()`,
    /// remembered in its place. One step: no other call comes between the test and the change.
    pub fn keep_or_remember(
        &self,
        name: &str,
        keep: impl FnOnce(&V) -> bool,
        fresh: impl FnOnce() -> V,
    ) -> V {
        let mut entries = self.lock();
        if let Some(value) = entries.get(name).filter(|value| keep(value)) {
            return value.clone();
        }
        let value = fresh();
        insert(&mut entries, name, value.clone());
        value
    }
}

/// Inserts `value` for `name`, everything forgotten first if `entries` is full.
fn insert<V>(entries: &mut HashMap<String, V>, name: &str, value: V) {
    if entries.len() >= MAX_REMEMBERED {
        entries.clear();
    }
    entries.insert(name.to_string(), value);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beyond_its_bound_it_forgets_everything() {
        let remembered = Remembered::default();
        for n in 0..MAX_REMEMBERED {
            remembered.remember(&n.to_string(), n);
        }
        assert_eq!(remembered.get("0"), Some(0), "full, nothing forgotten yet");
        remembered.remember("one more", MAX_REMEMBERED);
        assert_eq!(remembered.get("0"), None);
        assert_eq!(remembered.get(&(MAX_REMEMBERED - 1).to_string()), None);
        assert_eq!(remembered.get("one more"), Some(MAX_REMEMBERED));
    }

    #[test]
    fn forget_if_forgets_only_what_the_predicate_holds_for() {
        let remembered = Remembered::default();
        remembered.remember("job", 1);
        remembered.remember("other", 2);
        remembered.forget_if("job", |&value| value == 2);
        assert_eq!(remembered.get("job"), Some(1));
        remembered.forget_if("job", |&value| value == 1);
        assert_eq!(remembered.get("job"), None);
        assert_eq!(remembered.get("other"), Some(2), "per lease");
    }

    #[test]
    fn keep_or_remember_replaces_what_it_does_not_keep() {
        let remembered = Remembered::default();
        assert_eq!(remembered.keep_or_remember("job", |_| true, || 1), 1, "nothing to keep");
        assert_eq!(remembered.keep_or_remember("job", |&value| value == 1, || 2), 1);
        assert_eq!(remembered.keep_or_remember("job", |&value| value == 2, || 3), 3);
        assert_eq!(remembered.get("job"), Some(3));
    }
}
