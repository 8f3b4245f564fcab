//! Releases as they happen: one watch on the namespace's baton Leases per store, shared by its
//! subscribers, reporting each Lease whose holder identity was cleared or that was deleted, and
//! recording each version it reports as seen (see [`baton_core::lease::Sightings`]).
//!
//! The watch starts from the `resourceVersion` of a list read before the first subscription
//! returns, so no release after it is missed; a watch that ends is started again from the last
//! version seen, and one refused as too old (410 Gone) from a new list.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use baton_core::{Error, ErrorKind, LeaseChanges, LeaseName, Result};
use futures_util::StreamExt;
use k8s_openapi::api::coordination::v1::Lease as LeaseObject;
use kube::api::{WatchEvent, WatchParams};
use tokio::sync::broadcast;

use crate::client::Kube;
use crate::record::MANAGED_BY;
use baton_core::lease::Sightings;

/// Releases buffered per subscriber before the slowest loses some.
const CAPACITY: usize = 1024;
/// How long the API server keeps one watch open (it must be under 295 s).
const WATCH_SECONDS: u32 = 290;
/// How long a watch may stay silent before it is started again (a frozen server sends nothing).
const SILENCE: Duration = Duration::from_secs(WATCH_SECONDS as u64 + 10);
/// The pause before a failed list or watch is tried again.
const RETRY: Duration = Duration::from_secs(1);

/// The shared watch and its subscribers.
pub(crate) struct Feed {
    sender: broadcast::Sender<LeaseName>,
    running: Arc<AtomicBool>,
}

impl Default for Feed {
    fn default() -> Self {
        Feed { sender: broadcast::channel(CAPACITY).0, running: Arc::default() }
    }
}

impl Feed {
    /// A new subscriber; starts the watch (after one list) if none runs.
    pub(crate) async fn subscribe(
        &self,
        kube: &Kube,
        sightings: &Arc<Sightings>,
    ) -> Result<Box<dyn LeaseChanges>> {
        let receiver = self.sender.subscribe();
        if !self.running.swap(true, Ordering::AcqRel) {
            let version = match kube.list().await {
                Ok((_, version)) => version,
                Err(failure) => {
                    self.running.store(false, Ordering::Release);
                    return Err(failure.into_error("listing leases to watch them"));
                }
            };
            let watcher = Watcher {
                kube: kube.clone(),
                sender: self.sender.clone(),
                sightings: sightings.clone(),
            };
            tokio::spawn(watcher.run(self.running.clone(), version));
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
                    return Err(Error::new(ErrorKind::Unavailable, "the lease watch stopped"));
                }
            }
        }
    }
}

/// The watch task's ends: the API server, the subscribers, the sightings.
struct Watcher {
    kube: Kube,
    sender: broadcast::Sender<LeaseName>,
    sightings: Arc<Sightings>,
}

/// The watch's version is too old to resume from.
struct Gone;

impl Watcher {
    /// Watches from `version` for as long as anyone subscribes.
    async fn run(self, running: Arc<AtomicBool>, mut version: String) {
        loop {
            if let Err(Gone) = self.watch_once(&mut version).await {
                version = self.relist().await;
            }
            if self.sender.receiver_count() == 0 {
                running.store(false, Ordering::Release);
                // A subscriber that came meanwhile saw the watch running: keep it for it.
                if self.sender.receiver_count() == 0 || running.swap(true, Ordering::AcqRel) {
                    return;
                }
            }
        }
    }

    /// Lists the leases again after the watch fell too far behind, reporting those released
    /// (some may have been released in the gap); answers the list's version.
    async fn relist(&self) -> String {
        loop {
            match self.kube.list().await {
                Ok((objects, version)) => {
                    let mut ignored = version.clone();
                    for object in objects {
                        let free = released(&object);
                        self.follow(&mut ignored, object, free);
                    }
                    return version;
                }
                Err(_) => tokio::time::sleep(RETRY).await,
            }
        }
    }

    /// One watch request, until it ends; `version` follows the events.
    async fn watch_once(&self, version: &mut String) -> Result<(), Gone> {
        let labels = format!("{}={}", MANAGED_BY.0, MANAGED_BY.1);
        let params = WatchParams::default().labels(&labels).timeout(WATCH_SECONDS);
        let stream = match self.kube.leases().watch(&params, version).await {
            Ok(stream) => stream,
            Err(kube::Error::Api(status)) if status.code == 410 => return Err(Gone),
            Err(err) => {
                tracing::debug!(%err, "the lease watch could not start; trying again");
                tokio::time::sleep(RETRY).await;
                return Ok(());
            }
        };
        let mut stream = std::pin::pin!(stream);
        while let Ok(Some(event)) = tokio::time::timeout(SILENCE, stream.next()).await {
            let (object, released) = match event {
                Ok(WatchEvent::Added(object) | WatchEvent::Modified(object)) => {
                    let free = released(&object);
                    (object, free)
                }
                Ok(WatchEvent::Deleted(object)) => (object, true),
                Ok(WatchEvent::Bookmark(bookmark)) => {
                    *version = bookmark.metadata.resource_version;
                    continue;
                }
                Ok(WatchEvent::Error(status)) if status.code == 410 => return Err(Gone),
                Ok(WatchEvent::Error(status)) => {
                    tracing::debug!(status = %status.message, "the lease watch reported an error");
                    return Ok(());
                }
                Err(err) => {
                    tracing::debug!(%err, "the lease watch broke; starting it again");
                    return Ok(());
                }
            };
            self.follow(version, object, released);
        }
        Ok(())
    }

    /// Moves `version` past `object`, records the sighting, and reports the lease if it was
    /// released.
    fn follow(&self, version: &mut String, object: LeaseObject, released: bool) {
        let (Some(name), Some(seen)) = (object.metadata.name, object.metadata.resource_version)
        else {
            return;
        };
        self.sightings.saw(&name, &seen);
        *version = seen;
        if let (true, Ok(name)) = (released, LeaseName::new(name)) {
            // No subscriber left is not an error: the loop ends the watch.
            let _ = self.sender.send(name);
        }
    }
}

/// Whether `object`'s holder identity is empty.
fn released(object: &LeaseObject) -> bool {
    let holder = object.spec.as_ref().and_then(|spec| spec.holder_identity.as_deref());
    holder.is_none_or(str::is_empty)
}
