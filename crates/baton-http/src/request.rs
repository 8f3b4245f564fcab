//! A request to send and the answer read back.

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{HOST, HeaderName, HeaderValue};

/// The HTTP methods the backends use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Method {
    /// `GET`.
    Get,
    /// `PUT`.
    Put,
    /// `POST`.
    Post,
    /// `DELETE`.
    Delete,
    /// `HEAD`: the answer has headers only.
    Head,
}

impl Method {
    /// The method's name as sent, such as `GET`.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Put => "PUT",
            Method::Post => "POST",
            Method::Delete => "DELETE",
            Method::Head => "HEAD",
        }
    }

    fn hyper(self) -> hyper::Method {
        match self {
            Method::Get => hyper::Method::GET,
            Method::Put => hyper::Method::PUT,
            Method::Post => hyper::Method::POST,
            Method::Delete => hyper::Method::DELETE,
            Method::Head => hyper::Method::HEAD,
        }
    }
}

/// A request: method, path with its query, extra headers, and a body.
#[derive(Debug, Clone)]
pub struct Request {
    method: Method,
    path: String,
    headers: Vec<(HeaderName, HeaderValue)>,
    body: Bytes,
}

impl Request {
    /// A request of `method` for `path` (with its query), without a body.
    pub fn new(method: Method, path: impl Into<String>) -> Request {
        Request { method, path: path.into(), headers: Vec::new(), body: Bytes::new() }
    }

    /// The request with `body`.
    pub fn body(mut self, body: impl Into<Bytes>) -> Request {
        self.body = body.into();
        self
    }

    /// The request with the header `name: value` (the name in any case). A header that HTTP
    /// cannot carry (a line break in the value, a space in the name) is dropped, with a debug
    /// message naming it but not its value.
    pub fn header(mut self, name: &str, value: &str) -> Request {
        match (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(value)) {
            (Ok(name), Ok(mut value)) => {
                value.set_sensitive(true);
                self.headers.push((name, value));
            }
            _ => tracing::debug!(header = name, "a header HTTP cannot carry"),
        }
        self
    }

    /// The request's path with its query.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The request as hyper sends it to `address`; the error says why it cannot be sent (a
    /// path that is no URI).
    pub(crate) fn build(&self, address: &str) -> Result<hyper::Request<Full<Bytes>>, String> {
        let mut builder = hyper::Request::builder()
            .method(self.method.hyper())
            .uri(&self.path)
            .header(HOST, address);
        for (name, value) in &self.headers {
            builder = builder.header(name, value);
        }
        builder
            .body(Full::new(self.body.clone()))
            .map_err(|err| format!("cannot send a request for {:?}: {err}", self.path))
    }
}

/// An answer: its status, its headers and its whole body.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The status code.
    pub status: u16,
    headers: hyper::HeaderMap,
    /// The whole body.
    pub body: Bytes,
}

impl Answer {
    pub(crate) fn new(status: u16, headers: hyper::HeaderMap, body: Bytes) -> Answer {
        Answer { status, headers, body }
    }

    /// The value of the header `name` (case-insensitive), if it is present and text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }

    /// Every header whose value is text, names in lowercase, in the order received.
    pub fn headers(&self) -> impl Iterator<Item = (&str, &str)> {
        self.headers.iter().filter_map(|(name, value)| Some((name.as_str(), value.to_str().ok()?)))
    }
}
