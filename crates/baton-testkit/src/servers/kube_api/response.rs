//! Answers: JSON documents, `Status` errors, and the chunked stream of a watch.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Frame};
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE};
use hyper::{Response, StatusCode};
use serde::Serialize;
use tokio::sync::mpsc;

use super::status::ApiError;

/// The body of every answer.
pub(super) type HttpBody = BoxBody<Bytes, Infallible>;

/// `value` as JSON with `status`.
pub(super) fn json<T: Serialize>(status: StatusCode, value: &T) -> Response<HttpBody> {
    let body = serde_json::to_vec(value).expect("an answer serializes");
    respond(status, Full::new(Bytes::from(body)).boxed())
}

/// `error` as its `Status`.
pub(super) fn error(error: ApiError) -> Response<HttpBody> {
    json(error.code(), &error.into_status())
}

/// A 200 whose body is what `lines` receives, as it comes (chunked); it ends when the sender
/// is dropped.
pub(super) fn stream(lines: mpsc::Receiver<Bytes>) -> Response<HttpBody> {
    respond(StatusCode::OK, ChannelBody(lines).boxed())
}

fn respond(status: StatusCode, body: HttpBody) -> Response<HttpBody> {
    Response::builder()
        .status(status)
        .header(CONTENT_TYPE, "application/json")
        .header(CACHE_CONTROL, "no-cache, private")
        .body(body)
        .expect("an answer from a valid status and headers")
}

/// A body fed by a channel.
struct ChannelBody(mpsc::Receiver<Bytes>);

impl hyper::body::Body for ChannelBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.get_mut().0.poll_recv(cx).map(|line| line.map(|line| Ok(Frame::data(line))))
    }
}
