//! The way of every request: the route, the ACL token, the endpoint, blocking queries, and the
//! headers Consul answers with (`X-Consul-Index`, never 0, and `Date`, the agent's clock).

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use base64::Engine;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};
use tokio::sync::watch;

use super::super::http_emulation::{Body, Handler, LostAnswer};
use super::duration;
use super::kv::{Refused, Write};
use super::request::{Query, Route, token};
use super::state::{Entry, State};

/// How long a blocking query waits when it names no `wait`.
const DEFAULT_WAIT: Duration = Duration::from_secs(300);
/// The longest wait Consul allows a blocking query.
const MAX_WAIT: Duration = Duration::from_secs(600);
/// The leader's address, as `/v1/status/leader` answers it.
const LEADER: &str = "127.0.0.1:8300";

/// The server's state and settings, shared by its connections.
pub(super) struct App {
    state: Mutex<State>,
    /// The raft index after each write, for blocking queries to wake on.
    changes: watch::Sender<u64>,
    /// The ACL token every request but `/v1/status/leader` must carry, if any.
    acl_token: Option<String>,
    /// Keys whose next write is applied and its answer lost.
    losing: Mutex<BTreeSet<String>>,
    /// Whether the server serves (its session timers run only then).
    serving: AtomicBool,
}

/// An answer before its headers: status, JSON or text body, and the index to report.
struct Answer {
    status: StatusCode,
    body: Bytes,
    index: Option<u64>,
}

impl Answer {
    fn json(value: &Value, index: Option<u64>) -> Answer {
        Answer { status: StatusCode::OK, body: Bytes::from(value.to_string()), index }
    }

    fn text(status: StatusCode, text: impl Into<String>) -> Answer {
        Answer { status, body: Bytes::from(text.into()), index: None }
    }
}

impl App {
    /// An empty server, requiring `acl_token` if given.
    pub(super) fn new(acl_token: Option<String>) -> App {
        App {
            state: Mutex::default(),
            changes: watch::channel(0).0,
            acl_token,
            losing: Mutex::default(),
            serving: AtomicBool::new(true),
        }
    }

    pub(super) fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Tells blocking queries that the state changed.
    pub(super) fn changed(&self) {
        let index = self.state().index;
        self.changes.send_replace(index);
    }

    /// Stops the session timers (the server stopped serving).
    pub(super) fn pause(&self) {
        self.serving.store(false, Ordering::Release);
    }

    /// Starts every session's TTL timer again, as a new leader does, and runs them.
    pub(super) fn resume(&self) {
        self.state().reset_timers(Instant::now());
        self.serving.store(true, Ordering::Release);
    }

    /// Invalidates the sessions whose TTL ran out, while the server serves.
    pub(super) fn expire_sessions(&self) {
        if self.serving.load(Ordering::Acquire) && self.state().expire(Instant::now()) {
            self.changed();
        }
    }

    /// Applies the next write of `key` and loses its answer.
    pub(super) fn lose_answer_to(&self, key: &str) {
        self.losing.lock().unwrap_or_else(|p| p.into_inner()).insert(key.to_string());
    }

    /// Whether a write of `route` is the one whose answer is to be lost (once).
    fn loses_answer(&self, method: &Method, route: &Route) -> bool {
        let Route::Kv(key) = route else { return false };
        let mut losing = self.losing.lock().unwrap_or_else(|p| p.into_inner());
        *method != Method::GET && losing.remove(key)
    }

    async fn serve(&self, request: Request<Incoming>, now: Instant) -> (Answer, bool) {
        let method = request.method().clone();
        let Some(route) = Route::of(&method, request.uri().path()) else {
            let text = format!("Invalid URL path: {}", request.uri().path());
            return (Answer::text(StatusCode::NOT_FOUND, text), false);
        };
        let query = Query::parse(request.uri().query());
        if route != Route::Leader
            && let Some(required) = &self.acl_token
        {
            match token(request.headers(), &query) {
                Some(given) if given == required => {}
                Some(_) => return (Answer::text(StatusCode::FORBIDDEN, "ACL not found"), false),
                None => {
                    return (Answer::text(StatusCode::FORBIDDEN, "Permission denied"), false);
                }
            }
        }
        let lost = self.loses_answer(&method, &route);
        let body = match request.into_body().collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(err) => {
                let text = format!("reading the request body: {err}");
                return (Answer::text(StatusCode::BAD_REQUEST, text), false);
            }
        };
        let answer = match route {
            Route::Leader => Answer::json(&json!(LEADER), None),
            Route::CreateSession => {
                let created = self.state().create_session(&body, now);
                match created {
                    Ok(id) => self.written(json!({ "ID": id })),
                    Err(invalid) => Answer::text(StatusCode::INTERNAL_SERVER_ERROR, invalid.0),
                }
            }
            Route::RenewSession(id) => {
                let renewed = self.state().renew_session(&id, now);
                match renewed {
                    Some(session) => self.written(json!([session])),
                    None => {
                        Answer::text(StatusCode::NOT_FOUND, format!("Session id '{id}' not found"))
                    }
                }
            }
            Route::DestroySession(id) => {
                self.state().invalidate(&id, now);
                self.written(json!(true))
            }
            Route::SessionInfo(id) => {
                let state = self.state();
                let index = state.index.max(1);
                let sessions: Vec<Value> = state.session_info(&id).into_iter().collect();
                Answer::json(&json!(sessions), Some(index))
            }
            Route::Kv(key) => match method {
                Method::GET => self.read(&key, &query).await,
                Method::DELETE => {
                    let cas = query.get("cas").and_then(|cas| cas.parse().ok());
                    let deleted = self.state().kv_delete(&key, query.has("recurse"), cas);
                    self.written(json!(deleted))
                }
                _ => self.put(&key, &query, body.to_vec(), now),
            },
        };
        (answer, lost)
    }

    /// The answer to a write that was applied (or refused with `false`): blocking queries wake.
    fn written(&self, value: Value) -> Answer {
        self.changed();
        Answer::json(&value, None)
    }

    fn put(&self, key: &str, query: &Query, value: Vec<u8>, now: Instant) -> Answer {
        let number = |name: &str| query.get(name).map(|text| text.parse::<u64>());
        let flags = match number("flags").transpose() {
            Ok(flags) => flags.unwrap_or(0),
            Err(_) => return Answer::text(StatusCode::BAD_REQUEST, "Invalid flags"),
        };
        let write = if let Some(id) = query.get("acquire") {
            Write::Acquire(id.to_string())
        } else if let Some(id) = query.get("release") {
            Write::Release(id.to_string())
        } else if let Some(cas) = number("cas") {
            match cas {
                Ok(cas) => Write::Cas(cas),
                Err(_) => return Answer::text(StatusCode::BAD_REQUEST, "Invalid cas index"),
            }
        } else {
            Write::Set
        };
        let applied = self.state().kv_put(key, value, flags, &write, now);
        match applied {
            Ok(applied) => self.written(json!(applied)),
            Err(Refused(why)) => Answer::text(StatusCode::INTERNAL_SERVER_ERROR, why),
        }
    }

    /// A KV read; with `index`, a blocking query: it answers once the read's index passes the
    /// one given, or when `wait` is over.
    async fn read(&self, key: &str, query: &Query) -> Answer {
        let recurse = query.has("recurse");
        let after: u64 = query.get("index").and_then(|index| index.parse().ok()).unwrap_or(0);
        let wait = query.get("wait").and_then(duration::parse).unwrap_or(DEFAULT_WAIT);
        let deadline = tokio::time::Instant::now() + wait.min(MAX_WAIT);
        let mut changes = self.changes.subscribe();
        loop {
            let (entries, index) = {
                let state = self.state();
                (state.kv_read(key, recurse), state.read_index(key, recurse))
            };
            let waiting = after > 0 && index <= after;
            let timed_out = tokio::time::Instant::now() >= deadline;
            if !waiting || timed_out {
                return match entries.is_empty() {
                    true => Answer {
                        status: StatusCode::NOT_FOUND,
                        body: Bytes::new(),
                        index: Some(index),
                    },
                    false => {
                        let listed: Vec<Value> = entries.iter().map(|(k, e)| entry(k, e)).collect();
                        Answer::json(&json!(listed), Some(index))
                    }
                };
            }
            let _ = tokio::time::timeout_at(deadline, changes.changed()).await;
        }
    }
}

impl Handler for App {
    /// Answers `request`, or serves it and loses the answer (see
    /// [`lose_answer_to`](App::lose_answer_to)).
    async fn answer(
        self: Arc<Self>,
        request: Request<Incoming>,
    ) -> Result<Response<Body>, LostAnswer> {
        let (now, wall) = (Instant::now(), jiff::Timestamp::now());
        let (answer, lost) = self.serve(request, now).await;
        if lost {
            return Err(LostAnswer);
        }
        let content_type = match answer.status {
            StatusCode::OK => "application/json",
            _ => "text/plain; charset=utf-8",
        };
        let mut response = Response::builder()
            .status(answer.status)
            .header("content-type", content_type)
            .header("date", wall.strftime("%a, %d %b %Y %H:%M:%S GMT").to_string())
            .header("x-consul-knownleader", "true")
            .header("x-consul-lastcontact", "0");
        if let Some(index) = answer.index {
            response = response.header("x-consul-index", index.max(1).to_string());
        }
        Ok(response.body(Full::new(answer.body).boxed()).expect("an answer from valid parts"))
    }
}

/// A KV entry as Consul's KV endpoint answers it.
fn entry(key: &str, entry: &Entry) -> Value {
    let value = match entry.value.is_empty() {
        true => Value::Null,
        false => Value::from(base64::engine::general_purpose::STANDARD.encode(&entry.value)),
    };
    let mut answer = json!({
        "LockIndex": entry.lock_index,
        "Key": key,
        "Flags": entry.flags,
        "Value": value,
        "CreateIndex": entry.create_index,
        "ModifyIndex": entry.modify_index,
    });
    if let Some(session) = &entry.session {
        answer["Session"] = Value::from(session.as_str());
    }
    answer
}
