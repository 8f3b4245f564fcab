//! A client of etcd's v3 JSON gateway over the members of a cluster.
//!
//! Requests go to one member at a time (etcd forwards writes to its leader). A member that
//! cannot be reached is passed over for the next one, since nothing was sent to it; a request
//! that was sent and got no answer, or that the member refused as unable to serve (no leader, a
//! leader change), fails with an unknown outcome, and the next request starts at the next
//! member. Nothing is sent again on its own, except a request refused because the
//! authentication token was no longer valid (it was not applied): the client authenticates
//! again and sends it once more.

use std::fmt::Display;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use baton_core::{Error, ErrorKind, Result};
use bytes::Bytes;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::error::{Refusal, failure_error, malformed, tls_only};
use crate::keep_alive::{KeepAliveStream, StreamError};
use crate::options::EtcdOptions;
use crate::probe;
use crate::url::Target;
use crate::wire::{LeaseAnswer, TxnResponse};
use baton_http::{Answer, Endpoint, Failure, Method, Request, SecureLayer};

/// Why no member answered a request.
enum Unanswered {
    /// The member at this index took the request and failed to answer it.
    Failed(usize, Failure),
    /// No member could be reached: why, for each.
    NoneReachable(Vec<String>),
}

/// The members of one cluster and how to talk to them.
pub(crate) struct Client {
    pub(crate) target: Target,
    members: Vec<Endpoint>,
    /// The member the next request starts at.
    current: AtomicUsize,
    options: EtcdOptions,
    /// The authentication token, once the URL's credentials were accepted.
    token: Mutex<Option<String>>,
    /// The keep-alive stream, once opened.
    keep_alives: tokio::sync::Mutex<Option<Arc<KeepAliveStream>>>,
}

impl Client {
    /// A client of the target's members; nothing is opened yet.
    pub(crate) fn new(target: Target, options: EtcdOptions) -> Client {
        let members = target
            .members
            .iter()
            .map(|address| {
                let secure = target.tls.clone().map(|tls| Arc::new(tls) as Arc<dyn SecureLayer>);
                Endpoint::new(address.clone(), secure)
            })
            .collect();
        Client {
            target,
            members,
            current: AtomicUsize::new(0),
            options,
            token: Mutex::new(None),
            keep_alives: tokio::sync::Mutex::new(None),
        }
    }

    /// The members, for messages.
    pub(crate) fn endpoint(&self) -> String {
        self.target.endpoint()
    }

    fn token(&self) -> Option<String> {
        self.token.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
    }

    fn set_token(&self, token: Option<String>) {
        *self.token.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = token;
    }

    /// Sends `body` to `path` and reads the answer as `T`.
    pub(crate) async fn call<T: DeserializeOwned>(
        &self,
        path: &str,
        body: &Value,
        action: impl Display,
    ) -> Result<T> {
        let (body, action) = (Bytes::from(body.to_string()), action.to_string());
        let answer = self.post(path, &body, &action).await?;
        serde_json::from_slice(&answer).map_err(|err| {
            malformed(format!("{action}: {err}: {}", String::from_utf8_lossy(&answer)))
        })
    }

    /// Runs a transaction.
    pub(crate) async fn txn(&self, body: &Value, action: impl Display) -> Result<TxnResponse> {
        self.call("/v3/kv/txn", body, action).await
    }

    /// Keeps each etcd lease alive once, as messages on the store's keep-alive stream;
    /// answers each lease's TTL in order (0 for a lease that no longer exists).
    pub(crate) async fn keep_alive(&self, ids: &[i64]) -> Result<Vec<LeaseAnswer>> {
        let action = "keeping etcd leases alive";
        let mut authenticated = false;
        let mut reopened = false;
        loop {
            let stream = self.keep_alive_stream(action).await?;
            let member = stream.address.clone();
            let why = match stream.keep_alive(ids, self.options.request_timeout).await {
                Some(Ok(answers)) => return Ok(answers),
                None => return Err(failure_error(&member, action, &Failure::TimedOut)),
                Some(Err(why)) => why,
            };
            match why {
                StreamError::NotSent if !reopened => reopened = true,
                StreamError::Refused { code, message } => {
                    let refusal = Refusal { code, message };
                    if refusal.is_stale_token()
                        && self.target.credentials.is_some()
                        && !authenticated
                    {
                        self.authenticate().await?;
                        authenticated = true;
                        continue;
                    }
                    if refusal.is_unavailable() {
                        self.advance();
                    }
                    return Err(refusal.error(&self.endpoint(), action));
                }
                StreamError::Broken(why) => {
                    self.advance();
                    return Err(failure_error(&member, action, &Failure::Lost(why)));
                }
                StreamError::NotSent => {
                    let why = "the keep-alive stream ended as it was opened".to_string();
                    return Err(failure_error(&member, action, &Failure::Lost(why)));
                }
            }
        }
    }

    /// The open keep-alive stream, opened on the first member that accepts a connection if
    /// there is none or the last one ended.
    async fn keep_alive_stream(&self, action: &str) -> Result<Arc<KeepAliveStream>> {
        let mut open = self.keep_alives.lock().await;
        if let Some(stream) = open.as_ref().filter(|stream| !stream.ended()) {
            return Ok(stream.clone());
        }
        let token = self.token();
        let mut unreachable = Vec::new();
        for index in self.order() {
            let address = self.members[index].address();
            let tls = self.target.tls.as_ref();
            let connect_timeout = self.options.connect_timeout;
            match KeepAliveStream::open(address, tls, token.as_deref(), connect_timeout).await {
                Ok(stream) => return Ok(open.insert(stream).clone()),
                Err(why) => unreachable.push(why),
            }
        }
        Err(self.none_reachable(action, &unreachable))
    }

    /// Authenticates with the URL's credentials, if it has any, and keeps the token.
    pub(crate) async fn authenticate(&self) -> Result<()> {
        let Some((user, password)) = self.target.credentials.clone() else {
            return Ok(());
        };
        #[derive(serde::Deserialize)]
        struct Token {
            token: String,
        }
        let body = Bytes::from(json!({ "name": user, "password": password }).to_string());
        let action = format!("authenticating as {user}");
        let answer = self.send("/v3/auth/authenticate", Some(&body), None, &action).await?;
        let token: Token = self.read(answer, &action)?;
        self.set_token(Some(token.token));
        Ok(())
    }

    /// Asks the first member that answers for its version (`GET /version`).
    pub(crate) async fn version(&self) -> Result<Value> {
        let action = "reading the version";
        let answer = match self.attempt("/version", None, None).await {
            Ok(answer) => answer,
            Err(unanswered) => return Err(self.first_unanswered(action, unanswered).await),
        };
        let body = self.read_bytes(answer, action)?;
        serde_json::from_slice(&body).map_err(|_| {
            Error::invalid_input(format!(
                "the server at {} is not an etcd client port (it answered /version with {})",
                self.endpoint(),
                baton_core::echo::quoted(&String::from_utf8_lossy(&body))
            ))
        })
    }

    /// The error of the first request, as [`unanswered`](Self::unanswered) says, unless the
    /// URL is plain and the member that took the request and closed the connection serves TLS
    /// only: then it says to use `etcds://`.
    async fn first_unanswered(&self, action: &str, unanswered: Unanswered) -> Error {
        if let Unanswered::Failed(index, Failure::Lost(_)) = &unanswered
            && self.target.tls.is_none()
        {
            let address = self.members[*index].address();
            if probe::speaks_tls(address, self.options.connect_timeout).await {
                return tls_only(address);
            }
        }
        self.unanswered(action, unanswered)
    }

    /// Opens a streamed request (a watch) on the first member that accepts a connection.
    pub(crate) async fn stream(
        &self,
        path: &str,
        body: &Value,
        action: impl Display,
    ) -> Result<hyper::Response<hyper::body::Incoming>> {
        let body = Bytes::from(body.to_string());
        let token = self.token();
        let (connect, timeout) = (self.options.connect_timeout, self.options.request_timeout);
        let request = request(path, Some(&body), token.as_deref());
        let mut unreachable = Vec::new();
        for index in self.order() {
            match self.members[index].open_stream(&request, connect, timeout).await {
                Ok(response) if response.status() == 200 => return Ok(response),
                Ok(response) => {
                    let status = response.status().as_u16();
                    let body = http_body_util::BodyExt::collect(response.into_body())
                        .await
                        .map(|collected| collected.to_bytes())
                        .unwrap_or_default();
                    return Err(Refusal::read(status, &body).error(&self.endpoint(), action));
                }
                Err(Failure::Unreachable(why)) => unreachable.push(why),
                Err(failure) => return Err(failure_error(&self.endpoint(), action, &failure)),
            }
        }
        Err(self.none_reachable(action, &unreachable))
    }

    /// Posts `body` to `path`, authenticating again once if the token went stale.
    async fn post(&self, path: &str, body: &Bytes, action: &str) -> Result<Bytes> {
        let answer = self.send(path, Some(body), self.token(), action).await?;
        if answer.status != 200 && self.target.credentials.is_some() {
            let refusal = Refusal::read(answer.status, &answer.body);
            if refusal.is_stale_token() {
                self.authenticate().await?;
                let again = self.send(path, Some(body), self.token(), action).await?;
                return self.read_bytes(again, action);
            }
        }
        self.read_bytes(answer, action)
    }

    fn read<T: DeserializeOwned>(&self, answer: Answer, action: &str) -> Result<T> {
        let body = self.read_bytes(answer, action)?;
        serde_json::from_slice(&body).map_err(|err| malformed(format!("{action}: {err}")))
    }

    /// The body of a successful answer, or the refusal as an error.
    fn read_bytes(&self, answer: Answer, action: &str) -> Result<Bytes> {
        if answer.status == 200 {
            return Ok(answer.body);
        }
        let refusal = Refusal::read(answer.status, &answer.body);
        if refusal.is_unavailable() {
            self.advance();
        }
        let err = refusal.error(&self.endpoint(), action);
        Err(Error::new(err.kind(), self.target.scrub(&err.to_string())))
    }

    /// Sends one request to the members in turn until one of them can be reached.
    async fn send(
        &self,
        path: &str,
        body: Option<&Bytes>,
        token: Option<String>,
        action: &str,
    ) -> Result<Answer> {
        let attempt = self.attempt(path, body, token).await;
        attempt.map_err(|unanswered| self.unanswered(action, unanswered))
    }

    /// Sends one request to the members in turn until one of them can be reached; says why
    /// none answered otherwise.
    async fn attempt(
        &self,
        path: &str,
        body: Option<&Bytes>,
        token: Option<String>,
    ) -> std::result::Result<Answer, Unanswered> {
        let (connect, timeout) = (self.options.connect_timeout, self.options.request_timeout);
        let request = request(path, body, token.as_deref());
        let mut unreachable = Vec::new();
        for index in self.order() {
            match self.members[index].exchange(&request, connect, timeout).await {
                Ok(answer) => {
                    self.current.store(index, Ordering::Relaxed);
                    return Ok(answer);
                }
                Err(Failure::Unreachable(why)) => unreachable.push(why),
                Err(failure) => {
                    self.current.store((index + 1) % self.members.len(), Ordering::Relaxed);
                    return Err(Unanswered::Failed(index, failure));
                }
            }
        }
        Err(Unanswered::NoneReachable(unreachable))
    }

    /// The error of a request that no member answered; `action` says what was being done.
    fn unanswered(&self, action: &str, unanswered: Unanswered) -> Error {
        match unanswered {
            Unanswered::Failed(index, failure) => {
                failure_error(self.members[index].address(), action, &failure)
            }
            Unanswered::NoneReachable(why) => self.none_reachable(action, &why),
        }
    }

    /// The members in the order to try them: from the current one on.
    fn order(&self) -> impl Iterator<Item = usize> + use<> {
        let count = self.members.len();
        let start = self.current.load(Ordering::Relaxed) % count;
        (0..count).map(move |step| (start + step) % count)
    }

    /// Moves the next request on to the next member.
    fn advance(&self) {
        let count = self.members.len();
        let _ = self.current.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |current| {
            Some((current + 1) % count)
        });
    }

    fn none_reachable(&self, action: impl Display, why: &[String]) -> Error {
        Error::new(
            ErrorKind::Unavailable,
            format!(
                "{action}: cannot reach etcd at any of {} ({})",
                self.endpoint(),
                why.join("; ")
            ),
        )
    }
}

/// A request to a member: `GET` without a body or `POST` with a JSON one, authenticated with
/// `token` (sent as `Authorization`) if given.
fn request(path: &str, body: Option<&Bytes>, token: Option<&str>) -> Request {
    let request = match body {
        Some(body) => Request::new(Method::Post, path)
            .body(body.clone())
            .header("content-type", "application/json"),
        None => Request::new(Method::Get, path),
    };
    match token {
        Some(token) => request.header("authorization", token),
        None => request,
    }
}
