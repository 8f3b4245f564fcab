//! A watch of etcd through its JSON gateway: the streamed answer to `/v3/watch`, read as it
//! comes and split into its JSON messages. Dropping it closes its connection, which cancels the
//! watch in etcd.

use http_body_util::BodyExt;
use hyper::body::Incoming;
use serde::Deserialize;
use serde_json::Value;
use tokio::task::JoinHandle;

use super::gateway::{Gateway, GatewayError, Kv, RawKv, int64};

/// What a watch reports next.
pub(super) enum Batch {
    /// Changes, in revision order.
    Changes(Vec<Change>),
    /// The start revision was compacted away (etcd's compaction revision); the watch is over.
    Compacted(i64),
}

/// One change of a key.
pub(super) struct Change {
    /// Whether the key was deleted (else it was put).
    pub(super) deleted: bool,
    /// The key as it is after the change; for a deletion, only its `mod_revision` (the
    /// deletion's revision) is set.
    pub(super) kv: Kv,
    /// The key before the change, if it existed.
    pub(super) prev: Option<Kv>,
}

/// An open watch.
pub(super) struct GatewayWatch {
    body: Incoming,
    buffer: Vec<u8>,
    connection: JoinHandle<()>,
}

impl Drop for GatewayWatch {
    fn drop(&mut self) {
        self.connection.abort();
    }
}

impl GatewayWatch {
    /// Watches the keys starting with `prefix` from `start_revision` on.
    pub(super) async fn open(
        gateway: &Gateway,
        prefix: &str,
        start_revision: i64,
    ) -> Result<GatewayWatch, GatewayError> {
        let (response, connection) = gateway.open_watch(prefix, start_revision).await?;
        Ok(GatewayWatch { body: response.into_body(), buffer: Vec::new(), connection })
    }

    /// The next batch; `None` when etcd ended the stream.
    pub(super) async fn next(&mut self) -> Result<Option<Batch>, GatewayError> {
        loop {
            while let Some(envelope) = self.take_message()? {
                if let Some(error) = envelope.error {
                    return Err(GatewayError::Refused(error.to_string()));
                }
                let Some(result) = envelope.result else { continue };
                if result.compact_revision > 0 {
                    return Ok(Some(Batch::Compacted(result.compact_revision)));
                }
                if result.canceled {
                    return Err(GatewayError::Refused(result.cancel_reason));
                }
                if !result.events.is_empty() {
                    let changes = result.events.into_iter().map(RawEvent::decode);
                    return changes
                        .collect::<Result<_, _>>()
                        .map(|changes| Some(Batch::Changes(changes)));
                }
                // The creation notice or a progress notice: nothing to report.
            }
            match self.body.frame().await {
                None => return Ok(None),
                Some(Err(err)) => return Err(GatewayError::Unreachable(err.to_string())),
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        self.buffer.extend_from_slice(&data);
                    }
                }
            }
        }
    }

    /// The first complete message in the buffer, removed from it.
    fn take_message(&mut self) -> Result<Option<Envelope>, GatewayError> {
        let mut messages = serde_json::Deserializer::from_slice(&self.buffer).into_iter();
        let (message, used) = match messages.next() {
            None => (None, self.buffer.len()),
            Some(Ok(message)) => (Some(message), messages.byte_offset()),
            Some(Err(err)) if err.is_eof() => (None, 0),
            Some(Err(err)) => return Err(GatewayError::Malformed(err.to_string())),
        };
        self.buffer.drain(..used);
        Ok(message)
    }
}

/// One streamed message: a watch response or an error.
#[derive(Deserialize)]
struct Envelope {
    result: Option<WatchResult>,
    error: Option<Value>,
}

#[derive(Deserialize)]
struct WatchResult {
    #[serde(default)]
    canceled: bool,
    #[serde(default)]
    cancel_reason: String,
    #[serde(default, deserialize_with = "int64")]
    compact_revision: i64,
    #[serde(default)]
    events: Vec<RawEvent>,
}

#[derive(Deserialize)]
struct RawEvent {
    /// `DELETE`, or absent for a put.
    #[serde(default, rename = "type")]
    kind: String,
    kv: RawKv,
    prev_kv: Option<RawKv>,
}

impl RawEvent {
    fn decode(self) -> Result<Change, GatewayError> {
        Ok(Change {
            deleted: self.kind == "DELETE",
            kv: self.kv.decode()?,
            prev: self.prev_kv.map(RawKv::decode).transpose()?,
        })
    }
}
