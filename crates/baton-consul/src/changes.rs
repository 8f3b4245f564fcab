//! Releases as they happen: one blocking query on the `leases/` folder per store, shared by its
//! subscribers, reporting every lease whose session went away (released, invalidated, or the
//! key deleted).
//!
//! The first read is made before the first subscription returns, so no release after it is
//! missed. Each answer is compared with the one before; an answer whose index went backwards
//! (Consul's documented reset, such as after a restore) starts the query again from 0, and an
//! answer that changed nothing (Consul may return early) is only the next query's start.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use baton_core::{Error, ErrorKind, LeaseChanges, LeaseName, Result};
use tokio::sync::broadcast;

use crate::client::Consul;
use crate::keys;
use crate::wire::KvEntry;

/// Releases buffered per subscriber before the slowest loses some.
const CAPACITY: usize = 1024;
/// How long one blocking query waits for a change.
const WAIT: Duration = Duration::from_secs(60);
/// The pause before a failed query is sent again.
const RETRY: Duration = Duration::from_secs(1);

/// The shared query and its subscribers.
pub(crate) struct Feed {
    sender: broadcast::Sender<LeaseName>,
    running: Arc<AtomicBool>,
}

impl Default for Feed {
    fn default() -> Self {
        Feed { sender: broadcast::channel(CAPACITY).0, running: Arc::default() }
    }
}

/// Which session holds each lease key.
type Holders = HashMap<String, String>;

fn holders(entries: &[KvEntry]) -> Holders {
    entries
        .iter()
        .filter_map(|entry| Some((entry.key.clone(), entry.holder_session()?.to_string())))
        .collect()
}

impl Feed {
    /// A new subscriber; starts the query (after one read) if none runs.
    pub(crate) async fn subscribe(&self, consul: &Arc<Consul>) -> Result<Box<dyn LeaseChanges>> {
        let receiver = self.sender.subscribe();
        if !self.running.swap(true, Ordering::AcqRel) {
            let folder = keys::folder(&consul.target.prefix);
            let (entries, index) = match consul.read_prefix(&folder, None).await {
                Ok(read) => read,
                Err(err) => {
                    self.running.store(false, Ordering::Release);
                    return Err(err);
                }
            };
            let watcher = Watcher { consul: consul.clone(), sender: self.sender.clone(), folder };
            tokio::spawn(watcher.run(self.running.clone(), holders(&entries), index));
        }
        Ok(Box::new(Subscriber { receiver }))
    }
}

struct Subscriber {
    receiver: broadcast::Receiver<LeaseName>,
}

#[async_trait]
impl LeaseChanges for Subscriber {
    async fn next(&mut self) -> Result<LeaseName> {
        loop {
            match self.receiver.recv().await {
                Ok(name) => return Ok(name),
                // Releases were missed; waiters still wake at the holders' expiries.
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => {
                    return Err(Error::new(ErrorKind::Unavailable, "the lease query stopped"));
                }
            }
        }
    }
}

/// The query task's ends: the agent and the subscribers.
struct Watcher {
    consul: Arc<Consul>,
    sender: broadcast::Sender<LeaseName>,
    folder: String,
}

impl Watcher {
    /// Queries from `index` for as long as anyone subscribes.
    async fn run(self, running: Arc<AtomicBool>, mut held: Holders, mut index: u64) {
        loop {
            if self.sender.receiver_count() == 0 {
                running.store(false, Ordering::Release);
                // A subscriber that came meanwhile saw the query running: keep it for it.
                if self.sender.receiver_count() == 0 || running.swap(true, Ordering::AcqRel) {
                    return;
                }
            }
            match self.consul.read_prefix(&self.folder, Some((index, WAIT))).await {
                Ok((entries, answered)) => {
                    let now = holders(&entries);
                    self.report_gone(&held, &now);
                    held = now;
                    index = match answered < index {
                        true => 0,
                        false => answered,
                    };
                }
                Err(err) => {
                    tracing::debug!(%err, "the lease query failed; trying again");
                    tokio::time::sleep(RETRY).await;
                }
            }
        }
    }

    /// Reports every lease whose session in `before` no longer holds it in `now`.
    fn report_gone(&self, before: &Holders, now: &Holders) {
        for (key, session) in before {
            if now.get(key) == Some(session) {
                continue;
            }
            if let Ok(name) = keys::lease_name(&self.consul.target.prefix, key) {
                // No subscriber left is not an error: the loop ends the query.
                let _ = self.sender.send(name);
            }
        }
    }
}
