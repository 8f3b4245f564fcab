//! HTTP/1.1 to one etcd member: a few kept-alive connections, reused one request at a time.
//!
//! A failure says whether the request can have reached the member: [`Failure::Unreachable`]
//! (no connection could be opened, so nothing was sent) or [`Failure::Lost`] and
//! [`Failure::TimedOut`] (it may have been applied).

use std::sync::Mutex;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::client::conn::http1::{self, SendRequest};
use hyper::{Method, Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

/// Idle connections kept per member beyond which finished ones are closed.
const MAX_IDLE: usize = 16;

/// Why a request got no answer.
#[derive(Debug)]
pub(crate) enum Failure {
    /// No connection could be opened: the request was not sent.
    Unreachable(String),
    /// The connection failed after the request was sent: it may have been applied.
    Lost(String),
    /// No complete answer came in time: the request may have been applied.
    TimedOut,
}

/// An answer: its status and its whole body.
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) body: Bytes,
}

/// One member's client address and its idle connections.
pub(crate) struct Member {
    pub(crate) address: String,
    idle: Mutex<Vec<SendRequest<Full<Bytes>>>>,
}

impl Member {
    /// A member at `address` (`host:port`); nothing is opened yet.
    pub(crate) fn new(address: String) -> Member {
        Member { address, idle: Mutex::new(Vec::new()) }
    }

    fn idle(&self) -> std::sync::MutexGuard<'_, Vec<SendRequest<Full<Bytes>>>> {
        self.idle.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Sends one request and reads the whole answer within `timeout`.
    pub(crate) async fn exchange(
        &self,
        request: Outgoing<'_>,
        connect_timeout: Duration,
        timeout: Duration,
    ) -> Result<Answer, Failure> {
        let exchange = async {
            let mut sender = self.sender(connect_timeout).await?;
            let response = sender.send_request(request.build(&self.address)).await.map_err(lost)?;
            let status = response.status().as_u16();
            let body = response.into_body().collect().await.map_err(lost)?.to_bytes();
            self.give_back(sender);
            Ok(Answer { status, body })
        };
        tokio::time::timeout(timeout, exchange).await.unwrap_or(Err(Failure::TimedOut))
    }

    /// Sends one request on a connection of its own and returns the answer as it starts, for
    /// a streamed body read as it comes.
    pub(crate) async fn open_stream(
        &self,
        request: Outgoing<'_>,
        connect_timeout: Duration,
        timeout: Duration,
    ) -> Result<Response<Incoming>, Failure> {
        let opening = async {
            let mut sender = self.connect(connect_timeout).await?;
            sender.send_request(request.build(&self.address)).await.map_err(lost)
        };
        tokio::time::timeout(timeout, opening).await.unwrap_or(Err(Failure::TimedOut))
    }

    /// An idle connection that is still open, or a new one.
    async fn sender(&self, connect_timeout: Duration) -> Result<SendRequest<Full<Bytes>>, Failure> {
        loop {
            let Some(sender) = self.idle().pop() else {
                return self.connect(connect_timeout).await;
            };
            if sender.is_ready() {
                return Ok(sender);
            }
        }
    }

    fn give_back(&self, sender: SendRequest<Full<Bytes>>) {
        let mut idle = self.idle();
        if sender.is_ready() && idle.len() < MAX_IDLE {
            idle.push(sender);
        }
    }

    async fn connect(&self, timeout: Duration) -> Result<SendRequest<Full<Bytes>>, Failure> {
        let unreachable = |why: String| Failure::Unreachable(format!("{}: {why}", self.address));
        let opening = async {
            let stream = TcpStream::connect(&self.address)
                .await
                .map_err(|err| unreachable(err.to_string()))?;
            let _ = stream.set_nodelay(true);
            let (sender, connection) = http1::handshake(TokioIo::new(stream))
                .await
                .map_err(|err| unreachable(err.to_string()))?;
            tokio::spawn(async move {
                if let Err(err) = connection.await {
                    tracing::debug!(%err, "an etcd connection closed");
                }
            });
            Ok(sender)
        };
        tokio::time::timeout(timeout, opening)
            .await
            .unwrap_or_else(|_| Err(unreachable(format!("no connection within {timeout:?}"))))
    }
}

fn lost(err: hyper::Error) -> Failure {
    Failure::Lost(err.to_string())
}

/// A request to send: `GET` without a body, or `POST` with a JSON one.
pub(crate) struct Outgoing<'a> {
    pub(crate) path: &'a str,
    /// The JSON body of a `POST`; `None` for a `GET`.
    pub(crate) body: Option<Bytes>,
    /// The authentication token, sent as `Authorization`.
    pub(crate) token: Option<&'a str>,
}

impl Outgoing<'_> {
    fn build(&self, address: &str) -> Request<Full<Bytes>> {
        let method = if self.body.is_some() { Method::POST } else { Method::GET };
        let mut builder = Request::builder()
            .method(method)
            .uri(self.path)
            .header(hyper::header::HOST, address)
            .header(hyper::header::CONTENT_TYPE, "application/json");
        if let Some(token) = self.token {
            builder = builder.header(hyper::header::AUTHORIZATION, token);
        }
        builder
            .body(Full::new(self.body.clone().unwrap_or_default()))
            .expect("a request from a valid path and headers")
    }
}
