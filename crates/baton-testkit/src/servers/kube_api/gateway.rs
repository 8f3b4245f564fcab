//! A small client of etcd's v3 JSON gateway over HTTP/1.1: ranges, conditional writes in one
//! transaction, compaction, and watches (see [`super::gateway_watch`]). Keys and values travel in
//! base64 and 64-bit integers as decimal strings, as the gateway encodes them.

use std::fmt;
use std::sync::Mutex;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::client::conn::http1::{self, SendRequest};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde::{Deserialize, Deserializer};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

/// How long one request to etcd may take before it is reported as failed.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// Idle connections kept for reuse.
const MAX_IDLE: usize = 8;
/// etcd's message for a read or watch of a revision compacted away.
const COMPACTED: &str = "etcdserver: mvcc: required revision has been compacted";

/// Why etcd gave no usable answer.
#[derive(Debug)]
pub(super) enum GatewayError {
    /// No connection, a lost one, or no answer in time.
    Unreachable(String),
    /// etcd answered with an error (its gateway's message).
    Refused(String),
    /// The revision asked for has been compacted away.
    Compacted,
    /// The answer was not what the gateway sends.
    Malformed(String),
}

impl fmt::Display for GatewayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GatewayError::Unreachable(why) => write!(f, "etcd unreachable: {why}"),
            GatewayError::Refused(why) => write!(f, "{why}"),
            GatewayError::Compacted => write!(f, "{COMPACTED}"),
            GatewayError::Malformed(why) => write!(f, "unexpected answer from etcd: {why}"),
        }
    }
}

/// A key's value and its revisions.
#[derive(Clone, Debug)]
pub(super) struct Kv {
    pub(super) value: Vec<u8>,
    pub(super) create_revision: i64,
    pub(super) mod_revision: i64,
}

/// What a conditional write requires of its key.
pub(super) enum Condition {
    /// The key does not exist.
    Absent,
    /// The key was last modified at this revision.
    ModifiedAt(i64),
}

/// How a conditional write ended.
pub(super) enum Outcome {
    /// The condition held and the write was applied at this revision.
    Applied(i64),
    /// The condition failed; the key as it is now (`None` if absent).
    Lost(Option<Kv>),
}

/// The client: etcd's address and idle connections to it.
pub(super) struct Gateway {
    address: String,
    idle: Mutex<Vec<SendRequest<Full<Bytes>>>>,
}

impl Gateway {
    /// A client of the member listening on `port` on loopback; nothing is opened yet.
    pub(super) fn new(port: u16) -> Gateway {
        Gateway { address: format!("127.0.0.1:{port}"), idle: Mutex::new(Vec::new()) }
    }

    /// The key `key`, and the store's revision when it was read.
    pub(super) async fn get(&self, key: &str) -> Result<(Option<Kv>, i64), GatewayError> {
        let answer: RangeAnswer = self.call("/v3/kv/range", json!({ "key": b64(key) })).await?;
        let kv = answer.kvs.into_iter().next().map(RawKv::decode).transpose()?;
        Ok((kv, answer.header.revision))
    }

    /// The keys starting with `prefix` in key order (as of `revision` when given), and the
    /// revision they were read at.
    pub(super) async fn list(
        &self,
        prefix: &str,
        revision: Option<i64>,
    ) -> Result<(Vec<Kv>, i64), GatewayError> {
        let mut body = json!({ "key": b64(prefix), "range_end": prefix_end(prefix) });
        if let Some(revision) = revision {
            body["revision"] = json!(revision.to_string());
        }
        let answer: RangeAnswer = self.call("/v3/kv/range", body).await?;
        let kvs = answer.kvs.into_iter().map(RawKv::decode).collect::<Result<_, _>>()?;
        Ok((kvs, answer.header.revision))
    }

    /// The store's current revision.
    pub(super) async fn revision(&self) -> Result<i64, GatewayError> {
        let body = json!({ "key": b64("/"), "count_only": true });
        let answer: RangeAnswer = self.call("/v3/kv/range", body).await?;
        Ok(answer.header.revision)
    }

    /// Writes `value` at `key` if `condition` holds, in one transaction that reads the key back
    /// when it does not.
    pub(super) async fn put_if(
        &self,
        key: &str,
        condition: Condition,
        value: &[u8],
    ) -> Result<Outcome, GatewayError> {
        let put = json!({ "request_put": { "key": b64(key), "value": BASE64.encode(value) } });
        self.transaction(key, condition, put).await
    }

    /// Deletes `key` if it was last modified at `mod_revision`, in one transaction that reads
    /// the key back when it was not.
    pub(super) async fn delete_if(
        &self,
        key: &str,
        mod_revision: i64,
    ) -> Result<Outcome, GatewayError> {
        let delete = json!({ "request_delete_range": { "key": b64(key) } });
        self.transaction(key, Condition::ModifiedAt(mod_revision), delete).await
    }

    async fn transaction(
        &self,
        key: &str,
        condition: Condition,
        write: Value,
    ) -> Result<Outcome, GatewayError> {
        let compare = match condition {
            Condition::Absent => json!({ "key": b64(key), "target": "CREATE", "result": "EQUAL",
                                         "create_revision": "0" }),
            Condition::ModifiedAt(revision) => json!({ "key": b64(key), "target": "MOD",
                                                       "result": "EQUAL",
                                                       "mod_revision": revision.to_string() }),
        };
        let body = json!({
            "compare": [compare],
            "success": [write],
            "failure": [{ "request_range": { "key": b64(key) } }],
        });
        let answer: TxnAnswer = self.call("/v3/kv/txn", body).await?;
        if answer.succeeded {
            return Ok(Outcome::Applied(answer.header.revision));
        }
        let current = answer
            .responses
            .into_iter()
            .find_map(|response| response.response_range)
            .and_then(|range| range.kvs.into_iter().next())
            .map(RawKv::decode)
            .transpose()?;
        Ok(Outcome::Lost(current))
    }

    /// Compacts the store's history up to `revision`, waiting until it is applied.
    pub(super) async fn compact(&self, revision: i64) -> Result<(), GatewayError> {
        let body = json!({ "revision": revision.to_string(), "physical": true });
        let _: Value = self.call("/v3/kv/compaction", body).await?;
        Ok(())
    }

    /// Opens a watch on the keys starting with `prefix`, from `start_revision`, with each
    /// change's previous value; the answer streams on a connection of its own, closed when the
    /// returned task handle is aborted.
    pub(super) async fn open_watch(
        &self,
        prefix: &str,
        start_revision: i64,
    ) -> Result<(Response<Incoming>, JoinHandle<()>), GatewayError> {
        let body = json!({ "create_request": {
            "key": b64(prefix), "range_end": prefix_end(prefix),
            "start_revision": start_revision.to_string(), "prev_kv": true,
        }});
        let opening = async {
            let (mut sender, task) = self.connect().await?;
            match sender.send_request(self.request("/v3/watch", &body)).await {
                Ok(response) if response.status() == StatusCode::OK => Ok((response, task)),
                Ok(response) => {
                    task.abort();
                    Err(GatewayError::Refused(format!("watch answered {}", response.status())))
                }
                Err(err) => {
                    task.abort();
                    Err(GatewayError::Unreachable(err.to_string()))
                }
            }
        };
        tokio::time::timeout(REQUEST_TIMEOUT, opening)
            .await
            .unwrap_or_else(|_| Err(GatewayError::Unreachable("no answer in time".into())))
    }

    /// Posts `body` to `path` and decodes the answer.
    async fn call<T: for<'de> Deserialize<'de>>(
        &self,
        path: &str,
        body: Value,
    ) -> Result<T, GatewayError> {
        let exchange = async {
            let mut sender = self.connection().await?;
            let response = sender
                .send_request(self.request(path, &body))
                .await
                .map_err(|err| GatewayError::Unreachable(err.to_string()))?;
            let status = response.status();
            let bytes = response
                .into_body()
                .collect()
                .await
                .map_err(|err| GatewayError::Unreachable(err.to_string()))?
                .to_bytes();
            self.give_back(sender);
            if status != StatusCode::OK {
                let refusal: Refusal = serde_json::from_slice(&bytes).unwrap_or_default();
                return Err(match refusal.message.as_str() {
                    COMPACTED => GatewayError::Compacted,
                    _ => GatewayError::Refused(refusal.message),
                });
            }
            serde_json::from_slice(&bytes).map_err(|err| GatewayError::Malformed(err.to_string()))
        };
        tokio::time::timeout(REQUEST_TIMEOUT, exchange)
            .await
            .unwrap_or_else(|_| Err(GatewayError::Unreachable("no answer in time".into())))
    }

    fn request(&self, path: &str, body: &Value) -> Request<Full<Bytes>> {
        Request::post(path)
            .header(hyper::header::HOST, &self.address)
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(body.to_string())))
            .expect("a request from a valid path and headers")
    }

    /// An idle connection that is still open, or a new one.
    async fn connection(&self) -> Result<SendRequest<Full<Bytes>>, GatewayError> {
        loop {
            let Some(sender) = self.idle().pop() else {
                return self.connect().await.map(|(sender, _)| sender);
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

    fn idle(&self) -> std::sync::MutexGuard<'_, Vec<SendRequest<Full<Bytes>>>> {
        self.idle.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A new connection, run by a task of its own.
    async fn connect(&self) -> Result<(SendRequest<Full<Bytes>>, JoinHandle<()>), GatewayError> {
        let unreachable = |err: &dyn fmt::Display| GatewayError::Unreachable(err.to_string());
        let stream = TcpStream::connect(&self.address).await.map_err(|err| unreachable(&err))?;
        let _ = stream.set_nodelay(true);
        let (sender, connection) =
            http1::handshake(TokioIo::new(stream)).await.map_err(|err| unreachable(&err))?;
        let task = tokio::spawn(async move {
            if let Err(err) = connection.await {
                tracing::debug!(%err, "a connection to etcd ended");
            }
        });
        Ok((sender, task))
    }
}

/// `text` in base64, as the gateway takes keys.
fn b64(text: &str) -> String {
    BASE64.encode(text.as_bytes())
}

/// The end of the range of keys starting with `prefix` (its last byte plus one), in base64.
fn prefix_end(prefix: &str) -> String {
    let mut end = prefix.as_bytes().to_vec();
    *end.last_mut().expect("a non-empty prefix") += 1;
    BASE64.encode(end)
}

/// An int64 as the gateway writes it: a decimal string, absent when zero.
pub(super) fn int64<'de, D: Deserializer<'de>>(deserializer: D) -> Result<i64, D::Error> {
    let text = String::deserialize(deserializer)?;
    text.parse().map_err(serde::de::Error::custom)
}

/// A response header: the store's revision.
#[derive(Deserialize, Default)]
struct Header {
    #[serde(default, deserialize_with = "int64")]
    revision: i64,
}

/// A key-value pair as the gateway writes it.
#[derive(Deserialize)]
pub(super) struct RawKv {
    #[serde(default)]
    value: String,
    #[serde(default, deserialize_with = "int64")]
    create_revision: i64,
    #[serde(default, deserialize_with = "int64")]
    mod_revision: i64,
}

impl RawKv {
    pub(super) fn decode(self) -> Result<Kv, GatewayError> {
        let value =
            BASE64.decode(self.value).map_err(|err| GatewayError::Malformed(err.to_string()))?;
        Ok(Kv { value, create_revision: self.create_revision, mod_revision: self.mod_revision })
    }
}

#[derive(Deserialize)]
struct RangeAnswer {
    #[serde(default)]
    header: Header,
    #[serde(default)]
    kvs: Vec<RawKv>,
}

#[derive(Deserialize)]
struct TxnAnswer {
    #[serde(default)]
    header: Header,
    #[serde(default)]
    succeeded: bool,
    #[serde(default)]
    responses: Vec<TxnResponse>,
}

#[derive(Deserialize)]
struct TxnResponse {
    response_range: Option<RangeAnswer>,
}

/// An error answer of the gateway.
#[derive(Deserialize, Default)]
struct Refusal {
    #[serde(default)]
    message: String,
}
