//! The API's errors: an HTTP status and a JSON body `{"error":{"code":…,"message":…}}`.

use axum::http::header::WWW_AUTHENTICATE;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use baton::ErrorKind;
use serde::Serialize;

/// An error answered to a client.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
}

impl ApiError {
    /// An error with a status, a stable machine-readable code and a one-line message.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError { status, code, message: message.into() }
    }

    /// 400: the request named a malformed value.
    pub fn invalid_input(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::BAD_REQUEST, "invalid_input", message)
    }

    /// 404: the named thing does not exist.
    pub fn not_found(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The machine-readable code, such as `not_found`.
    pub fn code(&self) -> &'static str {
        self.code
    }
}

impl From<baton::Error> for ApiError {
    fn from(err: baton::Error) -> Self {
        let (status, code) = match err.kind() {
            ErrorKind::InvalidInput => (StatusCode::BAD_REQUEST, "invalid_input"),
            ErrorKind::NotFound => (StatusCode::NOT_FOUND, "not_found"),
            ErrorKind::Conflict => (StatusCode::CONFLICT, "conflict"),
            ErrorKind::LeaseLost => (StatusCode::CONFLICT, "lease_lost"),
            ErrorKind::Unavailable => (StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
            ErrorKind::Timeout => (StatusCode::SERVICE_UNAVAILABLE, "timeout"),
            ErrorKind::Schema => (StatusCode::SERVICE_UNAVAILABLE, "schema"),
            _ => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
        };
        if status.is_server_error() {
            tracing::warn!(%err, "request failed");
        }
        ApiError::new(status, code, err.to_string())
    }
}

#[derive(Serialize)]
struct Body<'a> {
    error: Detail<'a>,
}

#[derive(Serialize)]
struct Detail<'a> {
    code: &'a str,
    message: &'a str,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = Body { error: Detail { code: self.code, message: &self.message } };
        let mut response = (self.status, axum::Json(body)).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(WWW_AUTHENTICATE, challenge());
        }
        response
    }
}

/// The challenge of a 401 (RFC 6750): a bearer token is what the server wants.
pub(crate) fn challenge() -> HeaderValue {
    HeaderValue::from_static("Bearer realm=\"baton\"")
}

/// The result of a handler.
pub type ApiResult<T> = Result<T, ApiError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_errors_map_to_statuses_by_kind() {
        let cases = [
            (ErrorKind::InvalidInput, StatusCode::BAD_REQUEST),
            (ErrorKind::NotFound, StatusCode::NOT_FOUND),
            (ErrorKind::Conflict, StatusCode::CONFLICT),
            (ErrorKind::Unavailable, StatusCode::SERVICE_UNAVAILABLE),
            (ErrorKind::Timeout, StatusCode::SERVICE_UNAVAILABLE),
            (ErrorKind::Internal, StatusCode::INTERNAL_SERVER_ERROR),
        ];
        for (kind, status) in cases {
            let err = ApiError::from(baton::Error::new(kind, "boom"));
            assert_eq!(err.status(), status, "{kind}");
            assert_eq!(err.to_string(), "boom");
        }
    }
}
