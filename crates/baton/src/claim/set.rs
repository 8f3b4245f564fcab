//! The claims of one owner (an elector, a scheduler worker, a cluster worker), with the
//! enforcer that ends each at its deadline and all of them when the process stalls.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use baton_core::FencingToken;
use tokio::sync::Notify;
use tokio::time::{Instant, sleep_until};
use tokio_util::sync::CancellationToken;

use super::{Claim, Watchdog};

/// Why the enforcer ended a claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// Its deadline passed without a confirmed renewal or heartbeat.
    Deadline,
    /// The process did not run for this long, past the stall threshold.
    Stall(Duration),
}

/// A claim and what its owner keeps beside it.
pub(crate) struct Held<V> {
    pub(crate) claim: Arc<Claim>,
    pub(crate) state: V,
}

/// The claims one owner holds, by key (in key order, so that a run replays exactly), each with
/// the owner's state `V` beside it.
pub(crate) struct Claims<K, V = ()> {
    held: Mutex<BTreeMap<K, Held<V>>>,
    /// Wakes the enforcer when a claim is added.
    added: Notify,
    watchdog: Arc<Watchdog>,
    act_for: Duration,
    /// The owner's stop: every claim's cancellation is a child of it.
    stop: CancellationToken,
}

impl<K: Ord + Clone, V> Claims<K, V> {
    /// Claims that may act for `act_for` after each confirmed call, judged stalled after
    /// `stall_threshold` without running, and ended when `stop` fires.
    pub(crate) fn new(
        act_for: Duration,
        stall_threshold: Duration,
        stop: CancellationToken,
    ) -> Self {
        Claims {
            held: Mutex::new(BTreeMap::new()),
            added: Notify::new(),
            watchdog: Arc::new(Watchdog::new(stall_threshold)),
            act_for,
            stop,
        }
    }

    /// Every claim held, with the owner's state, under one lock.
    pub(crate) fn lock(&self) -> MutexGuard<'_, BTreeMap<K, Held<V>>> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Holds a new claim on `key` under `token`, whose claiming call was sent at `sent`, with
    /// the owner's state made from it. A claim it replaces on the same key is ended: one key,
    /// one live claim.
    pub(crate) fn hold(
        &self,
        key: K,
        what: String,
        token: FencingToken,
        sent: Instant,
        state: impl FnOnce(&Claim) -> V,
    ) -> Arc<Claim> {
        let ended = self.stop.child_token();
        let claim =
            Arc::new(Claim::new(what, token, sent, self.act_for, ended, self.watchdog.clone()));
        let state = state(&claim);
        let replaced = self.lock().insert(key, Held { claim: claim.clone(), state });
        if let Some(replaced) = replaced {
            replaced.claim.end("a newer claim of this process replaced it");
        }
        self.added.notify_one();
        claim
    }

    /// The claim held on `key`, if any.
    pub(crate) fn get(&self, key: &K) -> Option<Arc<Claim>> {
        self.lock().get(key).map(|held| held.claim.clone())
    }

    /// Every claim held, with its key.
    pub(crate) fn all(&self) -> Vec<(K, Arc<Claim>)> {
        self.lock().iter().map(|(key, held)| (key.clone(), held.claim.clone())).collect()
    }

    /// Forgets the claim on `key` if it is still `claim`, without ending it; answers the
    /// owner's state kept beside it.
    pub(crate) fn forget(&self, key: &K, claim: &Claim) -> Option<V> {
        let mut held = self.lock();
        if held.get(key).is_some_and(|current| std::ptr::eq(&*current.claim, claim)) {
            return held.remove(key).map(|held| held.state);
        }
        None
    }

    /// Ends the claim on `key` if it is still `claim`, and forgets it.
    pub(crate) fn end(&self, key: &K, claim: &Claim, reason: &str) {
        claim.end(reason);
        self.forget(key, claim);
    }

    /// Forgets the claim on `key`, whichever it is, without ending it; answers it with the
    /// owner's state.
    pub(crate) fn remove(&self, key: &K) -> Option<Held<V>> {
        self.lock().remove(key)
    }

    /// The claims not ended yet, with their keys.
    pub(crate) fn live(&self) -> Vec<(K, Arc<Claim>)> {
        let held = self.lock();
        let live = held.iter().filter(|(_, held)| !held.claim.is_ended());
        live.map(|(key, held)| (key.clone(), held.claim.clone())).collect()
    }

    /// Stops the owner: ends every claim and the enforcer.
    pub(crate) fn close(&self) {
        self.stop.cancel();
    }

    /// Runs until the owner stops: ticks the stall watchdog, ends every claim when the process
    /// stalled and each claim whose deadline passed, and hands each claim it ended to
    /// `on_end` with its key, so that the owner does what an end means to it (release the
    /// lease, give up the node's incarnation).
    pub(crate) async fn enforce(&self, on_end: impl Fn(K, Arc<Claim>, Ending)) {
        let period = self.watchdog.period();
        loop {
            let now = Instant::now();
            let earliest = self.live().iter().map(|(_, claim)| claim.deadline()).min();
            let wake = earliest.map_or(now + period, |deadline| deadline.min(now + period));
            tokio::select! {
                biased;
                () = self.stop.cancelled() => return,
                () = self.added.notified() => {}
                () = sleep_until(wake) => {}
            }
            let now = Instant::now();
            let stall = self.watchdog.tick(now);
            for (key, claim) in self.live() {
                let ending = match stall {
                    Some(stall) => Ending::Stall(stall),
                    None if now >= claim.deadline() => Ending::Deadline,
                    None => continue,
                };
                let reason = match ending {
                    Ending::Stall(stall) => format!("the process stalled for {stall:?}"),
                    Ending::Deadline => "its deadline passed without a confirmed renewal".into(),
                };
                tracing::warn!(claim = %claim.what, token = %claim.token, %reason, "claim ended");
                claim.end(reason);
                on_end(key, claim, ending);
            }
        }
    }
}
