//! Wake-ups for waiters: a refused acquisition leaves a watch on the lease's record, and the
//! record's next change (a release, a forced release, a lapse or a takeover) announces the
//! lease on every feed of this process.
//!
//! A term that ends because its holder's session expired deletes only the term node: waiters
//! learn of it by their next attempt, within their retry period.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use baton_core::{Error, ErrorKind, LeaseChanges, LeaseName, Result};
use tokio::sync::broadcast;
use zookeeper_client::OneshotWatcher;

/// Announcements not yet read that a feed may fall behind by before it breaks.
const BACKLOG: usize = 1024;

/// The leases this process waits for, and the feeds that hear of them.
pub(crate) struct Waiters {
    sender: broadcast::Sender<LeaseName>,
    /// The leases watched, each with the generation of the session's client that left the
    /// watch (a client replaced by another fires its watches only when it closes).
    watching: Mutex<HashSet<(LeaseName, u64)>>,
}

impl Default for Waiters {
    fn default() -> Self {
        Waiters { sender: broadcast::channel(BACKLOG).0, watching: Mutex::default() }
    }
}

impl Waiters {
    /// Announces `name` once `watcher`, left through the client of `generation`, fires, unless
    /// the lease is already watched through that client.
    pub(crate) fn wait_on(
        self: &Arc<Self>,
        name: &LeaseName,
        generation: u64,
        watcher: Option<OneshotWatcher>,
    ) {
        let Some(watcher) = watcher else { return };
        let key = (name.clone(), generation);
        if !self.watching.lock().unwrap_or_else(|e| e.into_inner()).insert(key.clone()) {
            return;
        }
        let waiters = self.clone();
        tokio::spawn(async move {
            watcher.changed().await;
            waiters.watching.lock().unwrap_or_else(|e| e.into_inner()).remove(&key);
            let _ = waiters.sender.send(key.0);
        });
    }

    /// A new feed.
    pub(crate) fn subscribe(&self) -> Box<dyn LeaseChanges> {
        Box::new(Feed(self.sender.subscribe()))
    }
}

struct Feed(broadcast::Receiver<LeaseName>);

#[async_trait]
impl LeaseChanges for Feed {
    async fn next(&mut self) -> Result<LeaseName> {
        self.0.recv().await.map_err(|err| {
            Error::new(ErrorKind::Unavailable, format!("the ZooKeeper release feed broke: {err}"))
        })
    }
}
