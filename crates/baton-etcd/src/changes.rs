//! Release notifications through a watch on the holder keys.
//!
//! A holder key is deleted when its lease is released (gracefully or by force) and when etcd
//! expires the etcd lease it is attached to, so the watch reports releases and expiries alike,
//! whether anyone waits or not. The watch starts at the revision it is created at: a feed whose
//! stream closes (the member stopped, the connection broke) reports an error and stays broken,
//! and the subscriber subscribes again and asks for the leases it waits for.

use std::collections::VecDeque;

use async_trait::async_trait;
use baton_core::{Error, ErrorKind, LeaseChanges, LeaseName, Result};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use serde_json::json;

use crate::error::{Refusal, malformed};
use crate::keys::{self, HOLDERS};
use crate::store::Inner;
use crate::wire::{Streamed, WatchResponse, b64, prefix_end};

/// Opens a watch on the deletions of holder keys, once etcd confirmed it.
pub(crate) async fn subscribe(inner: &Inner) -> Result<Box<dyn LeaseChanges>> {
    let request = json!({ "create_request": {
        "key": b64(HOLDERS.as_bytes()), "range_end": b64(&prefix_end(HOLDERS.as_bytes())),
        "filters": ["NOPUT"],
    } });
    let response = inner.client.stream("/v3/watch", &request, "watching lease releases").await?;
    let mut feed = Feed {
        body: Some(response.into_body()),
        buffer: Vec::new(),
        names: VecDeque::new(),
        endpoint: inner.client.endpoint(),
    };
    let created = feed.message().await?;
    if created.canceled {
        return Err(feed.canceled(&created));
    }
    Ok(Box::new(feed))
}

struct Feed {
    /// The streamed answer, or `None` once it ended.
    body: Option<Incoming>,
    /// Bytes received and not yet read as a message.
    buffer: Vec<u8>,
    /// Released leases received and not yet handed out.
    names: VecDeque<LeaseName>,
    endpoint: String,
}

impl Feed {
    /// The next message of the stream; an error once it ended.
    async fn message(&mut self) -> Result<WatchResponse> {
        loop {
            if let Some(end) = self.buffer.iter().position(|byte| *byte == b'\n') {
                let line: Vec<u8> = self.buffer.drain(..=end).collect();
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let message: Streamed<WatchResponse> = serde_json::from_slice(&line)
                    .map_err(|err| malformed(format!("a watch message: {err}")))?;
                return match (message.result, message.error) {
                    (Some(result), _) => Ok(result),
                    (None, error) => {
                        self.body = None;
                        let refusal: Refusal =
                            serde_json::from_value(error.unwrap_or_default()).unwrap_or_default();
                        Err(refusal.error(&self.endpoint, "watching lease releases"))
                    }
                };
            }
            let Some(body) = self.body.as_mut() else {
                return Err(self.broken());
            };
            match body.frame().await {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        self.buffer.extend_from_slice(&data);
                    }
                }
                _ => {
                    self.body = None;
                    return Err(self.broken());
                }
            }
        }
    }

    fn broken(&self) -> Error {
        Error::new(
            ErrorKind::Unavailable,
            format!(
                "the lease release feed lost its watch on etcd at {}: subscribe again",
                self.endpoint
            ),
        )
    }

    fn canceled(&mut self, answer: &WatchResponse) -> Error {
        self.body = None;
        Error::new(
            ErrorKind::Unavailable,
            format!(
                "etcd at {} canceled the lease release watch ({}): subscribe again",
                self.endpoint, answer.cancel_reason
            ),
        )
    }
}

#[async_trait]
impl LeaseChanges for Feed {
    async fn next(&mut self) -> Result<LeaseName> {
        loop {
            if let Some(name) = self.names.pop_front() {
                return Ok(name);
            }
            let answer = self.message().await?;
            if answer.canceled {
                return Err(self.canceled(&answer));
            }
            let deleted = answer.events.iter().filter(|event| event.kind == "DELETE");
            self.names.extend(deleted.filter_map(|event| keys::name_in(&event.kv.key, HOLDERS)));
        }
    }
}
