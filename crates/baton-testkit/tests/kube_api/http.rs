//! A tiny HTTP/1.1 client of the emulated API server (and of etcd's gateway) for its tests: a
//! request per connection, whole JSON answers, and watches read event by event.

use std::time::Duration;

use baton_testkit::servers::KubeApiServer;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

/// How long any answer or watch event may take.
const PATIENCE: Duration = Duration::from_secs(10);
/// The media type of plain JSON bodies.
pub const JSON: &str = "application/json";

/// A tiny HTTP/1.1 client: one connection per request.
#[derive(Clone)]
pub struct Client {
    pub port: u16,
    pub token: Option<String>,
}

/// A whole answer: its status and its JSON body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub body: Value,
}

/// A PATCH body, by its media type.
pub enum Patch {
    Merge(Value),
    Strategic(Value),
    Json(Value),
}

impl Client {
    pub fn of(server: &KubeApiServer) -> Client {
        Client { port: server.port(), token: Some(server.token().to_string()) }
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.send(Method::GET, path, None).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Reply {
        self.send(Method::POST, path, Some((JSON, body))).await
    }

    pub async fn put(&self, path: &str, body: Value) -> Reply {
        self.send(Method::PUT, path, Some((JSON, body))).await
    }

    pub async fn delete(&self, path: &str, options: Value) -> Reply {
        self.send(Method::DELETE, path, Some((JSON, options))).await
    }

    pub async fn patch(&self, path: &str, patch: Patch) -> Reply {
        let body = match patch {
            Patch::Merge(body) => ("application/merge-patch+json", body),
            Patch::Strategic(body) => ("application/strategic-merge-patch+json", body),
            Patch::Json(body) => ("application/json-patch+json", body),
        };
        self.send(Method::PATCH, path, Some(body)).await
    }

    pub async fn send(&self, method: Method, path: &str, body: Option<(&str, Value)>) -> Reply {
        let (response, _connection) = self.open(method, path, body).await;
        let status = response.status();
        let bytes = tokio::time::timeout(PATIENCE, response.into_body().collect())
            .await
            .expect("a whole answer in time")
            .expect("an answer")
            .to_bytes();
        let body = serde_json::from_slice(&bytes).unwrap_or_else(|err| {
            panic!("{status}: not JSON ({err}): {}", String::from_utf8_lossy(&bytes))
        });
        Reply { status: status.as_u16(), body }
    }

    /// Opens a watch: the answer's status, then its events as they come.
    pub async fn watch(&self, path: &str) -> Watch {
        let (response, connection) = self.open(Method::GET, path, None).await;
        let status = response.status().as_u16();
        Watch {
            status,
            body: response.into_body(),
            buffer: Vec::new(),
            ended_cleanly: false,
            _connection: connection,
        }
    }

    async fn open(
        &self,
        method: Method,
        path: &str,
        body: Option<(&str, Value)>,
    ) -> (hyper::Response<Incoming>, Connection) {
        let stream =
            TcpStream::connect(("127.0.0.1", self.port)).await.expect("the server listens");
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("a handshake");
        let connection = Connection(tokio::spawn(async move {
            let _ = connection.await;
        }));
        let mut request = Request::builder().method(method).uri(path).header("Host", "127.0.0.1");
        if let Some(token) = &self.token {
            request = request.header("Authorization", format!("Bearer {token}"));
        }
        let payload = match body {
            Some((media_type, body)) => {
                request = request.header("Content-Type", media_type);
                Bytes::from(body.to_string())
            }
            None => Bytes::new(),
        };
        let request = request.body(Full::new(payload)).expect("a request");
        let response = tokio::time::timeout(PATIENCE, sender.send_request(request))
            .await
            .expect("an answer in time")
            .expect("an answer");
        (response, connection)
    }
}

/// The task running a client connection, ended with it.
struct Connection(JoinHandle<()>);

impl Drop for Connection {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// An open watch.
pub struct Watch {
    pub status: u16,
    body: Incoming,
    buffer: Vec<u8>,
    /// Whether the stream ended with the chunked body's end (rather than a broken connection).
    pub ended_cleanly: bool,
    _connection: Connection,
}

impl Watch {
    /// The next event, or `None` once the stream has ended; panics if none comes in time.
    pub async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.buffer.iter().position(|byte| *byte == b'\n') {
                let line: Vec<u8> = self.buffer.drain(..=end).collect();
                return Some(serde_json::from_slice(&line).expect("a JSON line"));
            }
            match tokio::time::timeout(PATIENCE, self.body.frame()).await.expect("an event in time")
            {
                Some(Ok(frame)) => {
                    self.buffer.extend_from_slice(&frame.into_data().unwrap_or_default())
                }
                Some(Err(_)) => return None,
                None => {
                    self.ended_cleanly = true;
                    return None;
                }
            }
        }
    }
}
