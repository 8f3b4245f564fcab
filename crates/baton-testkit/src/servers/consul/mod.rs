//! An emulated Consul agent: **an emulation of one slice of Consul's HTTP API**, the part that
//! baton's Consul lease store uses, written from Consul's published API documentation (the
//! session, KV and blocking-query pages). No Consul server can be installed on the machines the
//! tests run on; this stands in for one, and nothing more.
//!
//! Modelled:
//! - a raft index that every write raises, and the KV entries' `CreateIndex`, `ModifyIndex`,
//!   `LockIndex`, `Flags`, `Session` and base64 `Value`;
//! - sessions: `PUT /v1/session/create` (a TTL from 10 s to 24 h, refused outside it in
//!   Consul's words; `Behavior` `release` or `delete`; `LockDelay`, 15 s unless given, at most
//!   60 s), `PUT /v1/session/renew/ID` (404 for an unknown or invalidated session),
//!   `PUT /v1/session/destroy/ID`, `GET /v1/session/info/ID`;
//! - a session's TTL as a lower bound: it is invalidated once its TTL has passed since its
//!   creation or last renewal (within a sweep of 20 ms), never earlier. Consul itself may wait
//!   up to twice the TTL; this waits the TTL, the shortest a client must be ready for;
//! - invalidation (TTL or destroy) releasing or deleting the session's keys as its behavior
//!   says, with the lock-delay: no session acquires those keys again before it passes. A
//!   `?release=` is no invalidation and leaves no lock-delay;
//! - `PUT /v1/kv/KEY` plain, with `?acquire=ID` (the holding session may write again and keeps
//!   the `LockIndex`), `?release=ID`, `?cas=INDEX` and `?flags=`; `GET` with `?recurse` (and
//!   `?consistent`, which every read is here); `DELETE` with `?recurse` and `?cas=`;
//! - blocking queries on KV reads with `?index=` and `?wait=` (5 minutes unless given, at most
//!   10), woken by any change; `X-Consul-Index` is never 0, for one key the index of the last
//!   change of any key (as Consul's), for a prefix the last change under it;
//! - `GET /v1/status/leader`; the agent's `Date` header, its only clock (second resolution);
//! - an optional ACL token (`X-Consul-Token`, a bearer `Authorization`, or `?token=`): 403 for
//!   a missing or wrong one on everything but the status endpoint;
//! - a restart keeping the state (the raft log) and starting every session's TTL timer again,
//!   as a newly elected leader does; no session expires while the server is stopped.
//!
//! Not modelled: health checks (a session's checks are recorded, never evaluated: only its TTL
//! and a destroy end it), nodes, services, the agent and catalog endpoints, ACL policies (one
//! token allows everything), datacenters, stale reads, the `X-Consul-Index` of deleted-key
//! tombstones being reaped, transactions, and blocking-query jitter.

mod app;
mod duration;
mod kv;
mod request;
mod sessions;
mod state;

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use super::http_emulation::{ServerThread, Serving, bind};
use app::App;

/// How often session TTLs are checked.
const SWEEP: Duration = Duration::from_millis(20);

/// An emulated Consul agent on a free loopback port: sessions, KV with acquire, release and
/// cas, blocking queries, TTL invalidation and lock-delay. Dropping it stops it.
pub struct ConsulServer {
    app: Arc<App>,
    serving: Mutex<Option<Serving>>,
    runtime: ServerThread,
    port: u16,
}

impl ConsulServer {
    /// Starts a server without ACLs; returns once it serves.
    pub fn start() -> ConsulServer {
        ConsulServer::serve(None)
    }

    /// Starts a server whose every request but `/v1/status/leader` must carry `token`.
    pub fn start_with_acl_token(token: &str) -> ConsulServer {
        ConsulServer::serve(Some(token.to_string()))
    }

    fn serve(acl_token: Option<String>) -> ConsulServer {
        let runtime = ServerThread::start("consul");
        let listener = bind(&runtime, 0);
        let port = listener.local_addr().expect("a bound listener has an address").port();
        let app = Arc::new(App::new(acl_token));
        let sweeping = Arc::downgrade(&app);
        runtime.spawn(async move {
            let mut ticks = tokio::time::interval(SWEEP);
            loop {
                ticks.tick().await;
                let Some(app) = sweeping.upgrade() else { return };
                app.expire_sessions();
            }
        });
        let serving = Serving::start(&runtime, listener, app.clone(), None);
        ConsulServer { app, serving: Mutex::new(Some(serving)), runtime, port }
    }

    /// The loopback port, the same across restarts.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The agent's address, `127.0.0.1:PORT`.
    pub fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// A `consul://` URL reaching the server.
    pub fn url(&self) -> String {
        format!("consul://{}", self.address())
    }

    /// Stops serving: the port is closed and every connection dropped (blocking queries end),
    /// and session timers stop. The state stays. Does nothing if the server is stopped.
    pub fn stop(&self) {
        if let Some(serving) = self.serving().take() {
            serving.stop();
            self.app.pause();
        }
    }

    /// Serves again on the same port (stopping first if it serves), with every session's TTL
    /// timer started again.
    pub fn restart(&self) {
        self.stop();
        let listener = bind(&self.runtime, self.port);
        self.app.resume();
        *self.serving() = Some(Serving::start(&self.runtime, listener, self.app.clone(), None));
    }

    /// Applies the next `PUT` or `DELETE` of `key` and then closes the connection without
    /// answering it: a write whose outcome the client cannot know.
    pub fn lose_answer_to(&self, key: &str) {
        self.app.lose_answer_to(key);
    }

    /// Deletes `key` as `DELETE /v1/kv/KEY` would; whether it existed.
    pub fn delete_key(&self, key: &str) -> bool {
        let existed = {
            let mut state = self.app.state();
            let existed = state.kv.contains_key(key);
            state.kv_delete(key, false, None);
            existed
        };
        self.app.changed();
        existed
    }

    /// The stored value of `key`, if it exists.
    pub fn value(&self, key: &str) -> Option<Vec<u8>> {
        self.app.state().kv.get(key).map(|entry| entry.value.clone())
    }

    /// The `ModifyIndex` and holding session of `key`, if it exists.
    pub fn entry_index(&self, key: &str) -> Option<(u64, Option<String>)> {
        let state = self.app.state();
        state.kv.get(key).map(|entry| (entry.modify_index, entry.session.clone()))
    }

    /// How many sessions exist.
    pub fn session_count(&self) -> usize {
        self.app.state().sessions.len()
    }

    fn serving(&self) -> MutexGuard<'_, Option<Serving>> {
        self.serving.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Drop for ConsulServer {
    fn drop(&mut self) {
        self.stop();
    }
}
