//! WATCH, driven by an etcd watch: a chunked stream of `{"type":…,"object":…}` lines.
//!
//! From `resourceVersion` N the etcd watch starts at N + 1; without one (or with "0") the
//! current objects come first as synthetic ADDED events. With `sendInitialEvents=true` they are
//! followed by a BOOKMARK marking their end (the WatchList protocol). A change that makes an
//! object leave a selector's view is a DELETED event, one that makes it enter an ADDED event.
//! A DELETED event carries the object's last state with the deletion's revision. A start
//! revision etcd has compacted away gets a single ERROR event (410 Expired) and the end of the
//! stream, as from kube-apiserver. `timeoutSeconds` ends the stream cleanly; so does a client
//! going away, which also cancels the etcd watch.

use std::future::pending;
use std::time::Duration;

use hyper::Response;
use hyper::body::Bytes;
use serde::Serialize;
use tokio::sync::mpsc;

use super::gateway_watch::{Batch, Change, GatewayWatch};
use super::object::Object;
use super::query::Query;
use super::resources::Kind;
use super::response::{self, HttpBody};
use super::selectors::Selectors;
use super::status::ApiError;
use super::storage::{self, Store};
use super::validation::FieldError;

/// Events buffered for a slow client before the etcd watch waits for it.
const BUFFERED_EVENTS: usize = 64;
/// The annotation of the bookmark that ends the initial events.
const INITIAL_EVENTS_END: &str = "k8s.io/initial-events-end";

/// Answers a WATCH of objects of kind `K` in `namespace` (or all).
pub(super) async fn watch<K: Kind>(
    store: &Store,
    namespace: Option<&str>,
    query: &Query,
) -> Result<Response<HttpBody>, ApiError> {
    let selectors = Selectors::parse::<K>(query)?;
    let options = WatchOptions::parse(query)?;
    let (initial, start) = match options.resource_version {
        Some(version) if version > 0 && !options.send_initial_events => (None, version),
        _ => {
            let (objects, revision) = store.list::<K>(namespace, None).await?;
            (Some(objects), revision)
        }
    };
    let watch = store.watch::<K>(namespace, start + 1).await?;
    let (sender, lines) = mpsc::channel(BUFFERED_EVENTS);
    let bookmark = options.send_initial_events.then_some(start);
    let feed = Feed { sender, initial, bookmark, watch, selectors, start };
    tokio::spawn(feed.run(options.timeout));
    Ok(response::stream(lines))
}

/// The watch parameters beyond the selectors.
struct WatchOptions {
    /// `resourceVersion`, when given ("0" included).
    resource_version: Option<i64>,
    send_initial_events: bool,
    timeout: Option<Duration>,
}

impl WatchOptions {
    fn parse(query: &Query) -> Result<WatchOptions, ApiError> {
        let resource_version = query.resource_version()?;
        let send_initial_events = query.flag("sendInitialEvents")?;
        let bookmarks = query.flag("allowWatchBookmarks")?.unwrap_or(false);
        let version_match = query.get("resourceVersionMatch").unwrap_or_default();
        let mut errors = Vec::new();
        if send_initial_events.is_some() {
            if version_match != "NotOlderThan" {
                errors.push(FieldError::forbidden(
                    "resourceVersionMatch",
                    "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
                ));
            }
            if !bookmarks {
                errors.push(FieldError::forbidden(
                    "allowWatchBookmarks",
                    "sendInitialEvents requires setting allowWatchBookmarks to true",
                ));
            }
        } else if !version_match.is_empty() {
            errors.push(FieldError::forbidden(
                "resourceVersionMatch",
                "resourceVersionMatch is forbidden for watch",
            ));
        }
        if !errors.is_empty() {
            return Err(ApiError::invalid_options("ListOptions", &errors));
        }
        let timeout = query.number("timeoutSeconds")?.map(Duration::from_secs);
        Ok(WatchOptions {
            resource_version,
            send_initial_events: send_initial_events.unwrap_or(false),
            timeout,
        })
    }
}

/// What feeds one watch stream.
struct Feed<K> {
    sender: mpsc::Sender<Bytes>,
    /// The objects to announce first, if any.
    initial: Option<Vec<Object<K>>>,
    /// The revision of the bookmark that ends the initial events, if one is asked for.
    bookmark: Option<i64>,
    watch: GatewayWatch,
    selectors: Selectors,
    /// The revision the stream starts after (the resourceVersion asked for).
    start: i64,
}

/// One line of a watch stream.
#[derive(Serialize)]
struct Line<'a, T> {
    r#type: &'a str,
    object: &'a T,
}

impl<K: Kind> Feed<K> {
    /// Feeds the stream until the watch ends, the timeout passes or the client goes away.
    async fn run(mut self, timeout: Option<Duration>) {
        let sender = self.sender.clone();
        let deadline = async {
            match timeout {
                Some(timeout) => tokio::time::sleep(timeout).await,
                None => pending().await,
            }
        };
        tokio::select! {
            () = self.feed() => {}
            () = sender.closed() => {}
            () = deadline => {}
        }
    }

    async fn feed(&mut self) {
        for object in self.initial.take().unwrap_or_default() {
            if self.selectors.matches(&object) && !self.send("ADDED", &object).await {
                return;
            }
        }
        if let Some(revision) = self.bookmark {
            let mut bookmark = Object::<K> {
                kind: K::RESOURCE.kind.to_string(),
                api_version: K::RESOURCE.api_version(),
                ..Object::default()
            };
            bookmark.metadata.resource_version = revision.to_string();
            bookmark.metadata.annotations.insert(INITIAL_EVENTS_END.into(), "true".into());
            if !self.send("BOOKMARK", &bookmark).await {
                return;
            }
        }
        loop {
            match self.watch.next().await {
                Ok(Some(Batch::Changes(changes))) => {
                    for change in changes {
                        let Some((kind, object)) = self.event(change) else { continue };
                        if !self.send(kind, &object).await {
                            return;
                        }
                    }
                }
                Ok(Some(Batch::Compacted(compacted))) => {
                    let message = format!("too old resource version: {} ({compacted})", self.start);
                    self.send("ERROR", &ApiError::expired(message).into_status()).await;
                    return;
                }
                Ok(None) => return,
                Err(err) => {
                    tracing::debug!(%err, "the etcd watch behind a Kubernetes watch failed");
                    return;
                }
            }
        }
    }

    /// The event a change makes for this stream's selectors, if any.
    fn event(&self, change: Change) -> Option<(&'static str, Object<K>)> {
        let revision = change.kv.mod_revision;
        let created = change.kv.create_revision == revision;
        let previous =
            change.prev.and_then(|kv| readable(storage::decode::<K>(kv))).map(|mut previous| {
                previous.metadata.resource_version = revision.to_string();
                previous
            });
        let before =
            previous.as_ref().map_or(!created, |previous| self.selectors.matches(previous));
        if change.deleted {
            return previous.filter(|_| before).map(|previous| ("DELETED", previous));
        }
        let current = readable(storage::decode::<K>(change.kv))?;
        match (self.selectors.matches(&current), before) {
            (true, true) => Some(("MODIFIED", current)),
            (true, false) => Some(("ADDED", current)),
            (false, true) => previous.map(|previous| ("DELETED", previous)),
            (false, false) => None,
        }
    }

    /// Sends one line; false when the client has gone.
    async fn send<T: Serialize>(&self, kind: &str, object: &T) -> bool {
        let mut line =
            serde_json::to_vec(&Line { r#type: kind, object }).expect("an event serializes");
        line.push(b'\n');
        self.sender.send(Bytes::from(line)).await.is_ok()
    }
}

/// The object, unless it could not be read (which is logged and skipped).
fn readable<K>(decoded: Result<storage::Current<K>, ApiError>) -> Option<Object<K>> {
    decoded
        .map(|current| current.object)
        .map_err(|err| tracing::warn!(?err, "skipping a stored object"))
        .ok()
}
