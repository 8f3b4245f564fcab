//! Refuses request bodies over 64 KiB with a 413, before any handler runs.

use axum::body::Body;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::http::header::CONTENT_LENGTH;
use axum::middleware::Next;
use axum::response::Response;

use crate::error::ApiError;

/// The largest request body accepted, in bytes.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// Reads the body up to the limit (the declared length is checked first) and hands it on.
pub(crate) async fn limit_body(request: Request, next: Next) -> Result<Response, ApiError> {
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

fn too_large() -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
        format!("request body too large: expected at most {MAX_BODY_BYTES} bytes"),
    )
}
