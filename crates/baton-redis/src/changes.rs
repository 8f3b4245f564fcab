//! Release notifications through pub/sub, on a connection of their own.
//!
//! A release script publishes the lease name on the store's release channel when a refused
//! contender waits (a forced release always does). Pub/sub keeps nothing for a subscriber that
//! is not connected, so a feed whose connection drops reports an error and stays broken: the
//! subscriber subscribes again and asks for the leases it waits for.

use std::pin::Pin;

use async_trait::async_trait;
use baton_core::{Error, ErrorKind, LeaseChanges, LeaseName, Result};
use futures_core::Stream;
use redis::aio::PubSubStream;

use crate::error::query_error;
use crate::store::Inner;

/// Opens a connection subscribed to the store's release channel.
pub(crate) async fn subscribe(inner: &Inner) -> Result<Box<dyn LeaseChanges>> {
    let mut pubsub = inner.link.subscriber().await?;
    pubsub
        .subscribe(&inner.channel)
        .await
        .map_err(|err| query_error(&inner.link.target, "subscribing to lease releases", &err))?;
    let endpoint = inner.link.target.endpoint.clone();
    Ok(Box::new(Subscription { messages: Some(pubsub.into_on_message()), endpoint }))
}

struct Subscription {
    /// The messages, or `None` once the connection is gone.
    messages: Option<PubSubStream>,
    endpoint: String,
}

#[async_trait]
impl LeaseChanges for Subscription {
    async fn next(&mut self) -> Result<LeaseName> {
        loop {
            let Some(messages) = self.messages.as_mut() else {
                return Err(broken(&self.endpoint));
            };
            let message = std::future::poll_fn(|cx| Pin::new(&mut *messages).poll_next(cx)).await;
            let Some(message) = message else {
                self.messages = None;
                return Err(broken(&self.endpoint));
            };
            match std::str::from_utf8(message.get_payload_bytes()).map(LeaseName::new) {
                Ok(Ok(name)) => return Ok(name),
                _ => tracing::debug!(
                    payload = ?message.get_payload_bytes(),
                    "ignoring a release message that names no lease"
                ),
            }
        }
    }
}

fn broken(endpoint: &str) -> Error {
    Error::new(
        ErrorKind::Unavailable,
        format!(
            "the lease release feed lost its connection to Redis at {endpoint}: subscribe again"
        ),
    )
}
