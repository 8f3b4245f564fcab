//! What the emulated servers (the Kubernetes API server, Consul's HTTP API) share: a thread and
//! tokio runtime of their own, as a separate server process would have, and an HTTP/1.1
//! listener that hands each request to the emulation's [`Handler`], over TLS when given an
//! acceptor, and can stop and serve again on the same port.

mod listener;
mod runtime;

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;

use http_body_util::combinators::BoxBody;
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};

pub(crate) use listener::{Serving, bind};
pub(crate) use runtime::ServerThread;

/// The body of every answer.
pub(crate) type Body = BoxBody<Bytes, Infallible>;

/// An emulation's answers to requests.
pub(crate) trait Handler: Send + Sync + 'static {
    /// The answer to `request`, or [`LostAnswer`] when the request was served and its answer
    /// is to be lost: the connection then closes without it.
    fn answer(
        self: Arc<Self>,
        request: Request<Incoming>,
    ) -> impl Future<Output = Result<Response<Body>, LostAnswer>> + Send;
}

/// The answer to a request was lost on purpose: the connection closes without it, the request
/// applied (a write whose outcome the client cannot know).
#[derive(Debug)]
pub(crate) struct LostAnswer;

impl std::fmt::Display for LostAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the answer was lost on purpose")
    }
}

impl std::error::Error for LostAnswer {}
