//! Limits on a request, each refused with a JSON error before any handler runs: a URI over
//! 8 KiB (414), a header section over 16 KiB or 64 fields (431), a body over 64 KiB (413).
//!
//! The connection ([`crate::serve`]) buffers heads up to [`HEAD_BUFFER_BYTES`], well above
//! these limits, so that an oversized head reaches this middleware and is answered in JSON;
//! only a head past that buffer (or a URI past HTTP/1's own 64 KiB) is cut by the HTTP layer
//! with a bare status and the connection closed.

use axum::body::Body;
use axum::extract::Request;
use axum::http::header::CONTENT_LENGTH;
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::Response;

use crate::error::ApiError;

/// The largest request body accepted, in bytes.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// The longest request target (path and query) accepted, in bytes.
pub const MAX_URI_BYTES: usize = 8 * 1024;

/// The largest header section accepted, in bytes (each field counted as `name: value\r\n`).
pub const MAX_HEADER_BYTES: usize = 16 * 1024;

/// The most header fields accepted.
pub const MAX_HEADER_FIELDS: usize = 64;

/// How much of a request head a connection buffers before the HTTP layer refuses it itself.
pub(crate) const HEAD_BUFFER_BYTES: usize = 256 * 1024;

/// How many header fields a connection parses before the HTTP layer refuses the request itself.
pub(crate) const HEAD_FIELDS_PARSED: usize = 1024;

/// Checks the head against the limits, then reads the body up to its limit (the declared
/// length is checked first) and hands the request on.
pub(crate) async fn limit_request(request: Request, next: Next) -> Result<Response, ApiError> {
    let uri = request.uri().path_and_query().map_or(0, |target| target.as_str().len());
    if uri > MAX_URI_BYTES {
        return Err(ApiError::new(
            StatusCode::URI_TOO_LONG,
            "uri_too_long",
            format!("request URI of {uri} bytes: expected at most {MAX_URI_BYTES}"),
        ));
    }
    check_headers(request.headers())?;
    let declared = request
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    if declared.is_some_and(|length| length > MAX_BODY_BYTES as u64) {
        return Err(too_large());
    }
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, MAX_BODY_BYTES).await.map_err(|err| {
        let over = std::error::Error::source(&err)
            .is_some_and(|source| source.is::<http_body_util::LengthLimitError>());
        if over {
            too_large()
        } else {
            ApiError::invalid_input(format!("unreadable request body: {err}"))
        }
    })?;
    Ok(next.run(Request::from_parts(parts, Body::from(bytes))).await)
}

fn check_headers(headers: &HeaderMap) -> Result<(), ApiError> {
    let fields = headers.len();
    let bytes: usize = headers
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + ": \r\n".len())
        .sum();
    if fields <= MAX_HEADER_FIELDS && bytes <= MAX_HEADER_BYTES {
        return Ok(());
    }
    Err(ApiError::new(
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        "headers_too_large",
        format!(
            "{fields} header fields of {bytes} bytes: expected at most {MAX_HEADER_FIELDS} \
             fields and {MAX_HEADER_BYTES} bytes"
        ),
    ))
}

fn too_large() -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
        format!("request body too large: expected at most {MAX_BODY_BYTES} bytes"),
    )
}
