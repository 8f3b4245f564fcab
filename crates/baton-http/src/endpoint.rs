//! One endpoint (`host:port`): a few kept-alive connections, reused one request at a time.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use http_body_util::BodyExt;
use hyper::Response;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use crate::connection::{Connection, Unanswered};
use crate::failure::Failure;
use crate::request::{Answer, Request};
use crate::secure::{Explained, SecureLayer};

/// Idle connections kept beyond which finished ones are closed.
const MAX_IDLE: usize = 16;

/// One endpoint's address, its secure layer if any, and its idle connections.
pub struct Endpoint {
    address: String,
    secure: Option<Arc<dyn SecureLayer>>,
    idle: Mutex<Vec<Connection>>,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("address", &self.address)
            .field("secure", &self.secure.is_some())
            .finish_non_exhaustive()
    }
}

impl Endpoint {
    /// The endpoint at `address` (`host:port`), through `secure` when given (plain HTTP
    /// otherwise); nothing is opened yet.
    pub fn new(address: impl Into<String>, secure: Option<Arc<dyn SecureLayer>>) -> Endpoint {
        Endpoint { address: address.into(), secure, idle: Mutex::new(Vec::new()) }
    }

    /// The endpoint's `host:port`.
    pub fn address(&self) -> &str {
        &self.address
    }

    fn idle(&self) -> MutexGuard<'_, Vec<Connection>> {
        self.idle.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Sends one request and reads the whole answer within `timeout` (connecting included),
    /// opening a connection within `connect_timeout` if no idle one is open. A request that an
    /// idle connection did not take, because the endpoint had just closed it, is sent once more
    /// on a new connection: none of it was written.
    pub async fn exchange(
        &self,
        request: &Request,
        connect_timeout: Duration,
        timeout: Duration,
    ) -> Result<Answer, Failure> {
        let exchange = async {
            let outgoing = request.build(&self.address).map_err(Failure::Unreachable)?;
            let (mut connection, reused) = self.connection(connect_timeout).await?;
            let response = match connection.send(outgoing).await {
                Ok(response) => response,
                Err(Unanswered { unsent: Some(outgoing), .. }) if reused => {
                    connection = self.connect(connect_timeout).await?;
                    connection.send(outgoing).await.map_err(|failed| self.lost(failed.error))?
                }
                Err(failed) => return Err(self.lost(failed.error)),
            };
            let (parts, body) = response.into_parts();
            let body = body.collect().await.map_err(|err| self.lost(err))?.to_bytes();
            self.give_back(connection);
            Ok(Answer::new(parts.status.as_u16(), parts.headers, body))
        };
        tokio::time::timeout(timeout, exchange).await.unwrap_or(Err(Failure::TimedOut))
    }

    /// Sends one request on a connection of its own and returns the answer as it starts, for
    /// a streamed body read as it comes.
    pub async fn open_stream(
        &self,
        request: &Request,
        connect_timeout: Duration,
        timeout: Duration,
    ) -> Result<Response<Incoming>, Failure> {
        let opening = async {
            let outgoing = request.build(&self.address).map_err(Failure::Unreachable)?;
            let mut connection = self.connect(connect_timeout).await?;
            connection.send(outgoing).await.map_err(|failed| self.lost(failed.error))
        };
        tokio::time::timeout(timeout, opening).await.unwrap_or(Err(Failure::TimedOut))
    }

    /// An idle connection that is still open (`true`: reused), or a new one (`false`).
    async fn connection(&self, connect_timeout: Duration) -> Result<(Connection, bool), Failure> {
        loop {
            let Some(connection) = self.idle().pop() else {
                return Ok((self.connect(connect_timeout).await?, false));
            };
            if connection.is_ready() {
                return Ok((connection, true));
            }
        }
    }

    fn give_back(&self, connection: Connection) {
        let mut idle = self.idle();
        if connection.is_ready() && idle.len() < MAX_IDLE {
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
            let started = match &self.secure {
                None => Connection::start(TokioIo::new(stream), &self.address).await,
                Some(secure) => {
                    let stream =
                        secure.handshake(&self.address, stream).await.map_err(unreachable)?;
                    Connection::start(TokioIo::new(stream), &self.address).await
                }
            };
            started.map_err(|err| unreachable(err.to_string()))
        };
        tokio::time::timeout(timeout, opening)
            .await
            .unwrap_or_else(|_| Err(unreachable(format!("no connection within {timeout:?}"))))
    }

    /// The failure of a request that was sent: lost, unless the secure layer says the endpoint
    /// refused the connection itself.
    fn lost(&self, err: hyper::Error) -> Failure {
        match self.secure.as_ref().and_then(|secure| secure.explain(&err)) {
            Some(Explained::NotServed(why)) => {
                Failure::Unreachable(format!("{}: {why}", self.address))
            }
            Some(Explained::Lost(why)) => Failure::Lost(why),
            None => Failure::Lost(err.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Method;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    const SHORT: Duration = Duration::from_secs(5);

    /// A server that reads one request, then answers `reply` (or closes if it is empty).
    async fn one_shot(reply: &'static str) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap().to_string();
        tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut request = vec![0u8; 4096];
            let _ = stream.read(&mut request).await.unwrap();
            if !reply.is_empty() {
                stream.write_all(reply.as_bytes()).await.unwrap();
            }
        });
        address
    }

    #[tokio::test]
    async fn an_answer_carries_its_status_headers_and_body() {
        let address =
            one_shot("HTTP/1.1 200 OK\r\nX-Consul-Index: 7\r\nContent-Length: 4\r\n\r\ntrue").await;
        let endpoint = Endpoint::new(address, None);
        let request = Request::new(Method::Put, "/v1/kv/a?acquire=s").body("x").header("x-a", "b");
        let answer = endpoint.exchange(&request, SHORT, SHORT).await.unwrap();
        assert_eq!((answer.status, &answer.body[..]), (200, &b"true"[..]));
        assert_eq!(answer.header("x-consul-index"), Some("7"));
    }

    #[tokio::test]
    async fn failures_say_whether_the_request_was_sent() {
        let closed = one_shot("").await;
        let endpoint = Endpoint::new(closed, None);
        let request = Request::new(Method::Get, "/");
        let failure = endpoint.exchange(&request, SHORT, SHORT).await.unwrap_err();
        assert!(matches!(failure, Failure::Lost(_)), "{failure:?}");
        assert!(failure.outcome_unknown());

        let unused = TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap();
        let endpoint = Endpoint::new(unused.to_string(), None);
        let failure = endpoint.exchange(&request, SHORT, SHORT).await.unwrap_err();
        assert!(matches!(failure, Failure::Unreachable(_)), "{failure:?}");
        assert!(!failure.outcome_unknown());

        let silent = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let endpoint = Endpoint::new(silent.local_addr().unwrap().to_string(), None);
        let failure =
            endpoint.exchange(&request, SHORT, Duration::from_millis(200)).await.unwrap_err();
        assert_eq!(failure, Failure::TimedOut);
    }
}
