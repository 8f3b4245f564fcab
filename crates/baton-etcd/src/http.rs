//! HTTP/1.1 to one etcd member, over TLS for an `etcds://` URL: a few kept-alive connections,
//! reused one request at a time.
//!
//! A failure says whether the request can have reached the member: [`Failure::Unreachable`]
//! (no connection could be opened, or the member refused the TLS handshake, so nothing was
//! served) or [`Failure::Lost`] and [`Failure::TimedOut`] (it may have been applied).

use std::sync::Mutex;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::client::conn::http1::{self, SendRequest};
use hyper::rt::{Read, Write};
use hyper::{Method, Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

use crate::tls::{self, Tls};

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

/// One member's client address, how to talk to it, and its idle connections.
pub(crate) struct Member {
    pub(crate) address: String,
    /// TLS to the member; `None` for plain HTTP.
    tls: Option<Tls>,
    idle: Mutex<Vec<Connection>>,
}

/// An open connection: the handle that sends on it, and the task that runs it, whose error says
/// why a request was only told it was canceled.
struct Connection {
    sender: SendRequest<Full<Bytes>>,
    task: JoinHandle<Result<(), hyper::Error>>,
}

impl Connection {
    /// Sends `request`; when the connection failed before taking it, the error is the
    /// connection's (such as the member refusing the TLS handshake).
    async fn send(
        &mut self,
        request: Request<Full<Bytes>>,
    ) -> Result<Response<Incoming>, hyper::Error> {
        match self.sender.send_request(request).await {
            // A canceled request means the connection ended: its task is finishing.
            Err(err) if err.is_canceled() => match (&mut self.task).await {
                Ok(Err(cause)) => Err(cause),
                _ => Err(err),
            },
            other => other,
        }
    }
}

impl Member {
    /// A member at `address` (`host:port`), over TLS when `tls` is given; nothing is opened
    /// yet.
    pub(crate) fn new(address: String, tls: Option<Tls>) -> Member {
        Member { address, tls, idle: Mutex::new(Vec::new()) }
    }

    fn idle(&self) -> std::sync::MutexGuard<'_, Vec<Connection>> {
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
            let mut connection = self.connection(connect_timeout).await?;
            let response = connection
                .send(request.build(&self.address))
                .await
                .map_err(|err| self.lost(err))?;
            let status = response.status().as_u16();
            let body =
                response.into_body().collect().await.map_err(|err| self.lost(err))?.to_bytes();
            self.give_back(connection);
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
            let mut connection = self.connect(connect_timeout).await?;
            connection.send(request.build(&self.address)).await.map_err(|err| self.lost(err))
        };
        tokio::time::timeout(timeout, opening).await.unwrap_or(Err(Failure::TimedOut))
    }

    /// An idle connection that is still open, or a new one.
    async fn connection(&self, connect_timeout: Duration) -> Result<Connection, Failure> {
        loop {
            let Some(connection) = self.idle().pop() else {
                return self.connect(connect_timeout).await;
            };
            if connection.sender.is_ready() {
                return Ok(connection);
            }
        }
    }

    fn give_back(&self, connection: Connection) {
        let mut idle = self.idle();
        if connection.sender.is_ready() && idle.len() < MAX_IDLE {
            idle.push(connection);
        }
    }

    async fn connect(&self, timeout: Duration) -> Result<Connection, Failure> {
        let unreachable = |why: String| Failure::Unreachable(format!("{}: {why}", self.address));
        let opening = async {
            let stream = TcpStream::connect(&self.address)
                .await
                .map_err(|err| unreachable(err.to_string()))?;
            let _ = stream.set_nodelay(true);
            let started = match &self.tls {
                None => start(TokioIo::new(stream)).await,
                Some(tls) => {
                    let stream = tls.handshake(&self.address, stream).await.map_err(unreachable)?;
                    start(TokioIo::new(stream)).await
                }
            };
            started.map_err(|err| unreachable(err.to_string()))
        };
        tokio::time::timeout(timeout, opening)
            .await
            .unwrap_or_else(|_| Err(unreachable(format!("no connection within {timeout:?}"))))
    }

    /// The failure of a request that was sent: lost, unless the member refused the TLS
    /// handshake over the client's certificate, which TLS 1.3 reports only with the answer.
    fn lost(&self, err: hyper::Error) -> Failure {
        match self.tls.as_ref().and_then(|tls| tls.explain(&err)) {
            Some(why) if tls::is_client_refused(&err) => {
                Failure::Unreachable(format!("{}: {why}", self.address))
            }
            Some(why) => Failure::Lost(why),
            None => Failure::Lost(err.to_string()),
        }
    }
}

/// Starts HTTP/1.1 on an open connection; the connection runs on its own task.
async fn start<T>(io: T) -> Result<Connection, hyper::Error>
where
    T: Read + Write + Unpin + Send + 'static,
{
    let (sender, connection) = http1::handshake(io).await?;
    let task = tokio::spawn(async move {
        let ended = connection.await;
        if let Err(err) = &ended {
            tracing::debug!(%err, "an etcd connection closed");
        }
        ended
    });
    Ok(Connection { sender, task })
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
