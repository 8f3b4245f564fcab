//! Bearer-token checks: reads are open unless a read token is set; admin actions need the
//! admin token and are refused when none is configured.

use axum::extract::{Request, State};
use axum::http::header::AUTHORIZATION;
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::Response;

use crate::ServerConfig;
use crate::error::ApiError;
use crate::state::AppState;

/// Lets a read through when no read token is set, or when the request bears the read token
/// or the admin token.
pub(crate) async fn require_read(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Result<Response, ApiError> {
    check_read(&state.config, request.headers())?;
    Ok(next.run(request).await)
}

/// Whether a request with these headers may read: always when no read token is set, else
/// when it bears the read token or the admin token.
pub(crate) fn check_read(config: &ServerConfig, headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(read_token) = config.read_token.as_deref() else { return Ok(()) };
    let presented = bearer(headers)?;
    let admin = config.admin_token.as_deref().is_some_and(|admin| same(presented, admin));
    if same(presented, read_token) || admin { Ok(()) } else { Err(bad_token()) }
}

/// Lets an admin action through only when an admin token is configured and presented.
pub(crate) async fn require_admin(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Result<Response, ApiError> {
    let Some(admin_token) = state.config.admin_token.as_deref() else {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "forbidden",
            "admin actions are disabled: set an admin token in the agent's configuration to \
             enable them",
        ));
    };
    if same(bearer(request.headers())?, admin_token) {
        Ok(next.run(request).await)
    } else {
        Err(bad_token())
    }
}

/// The token of an `Authorization: Bearer <token>` header (the scheme in any case, as RFC 7235
/// has it), or a 401.
fn bearer(headers: &HeaderMap) -> Result<&str, ApiError> {
    let missing = || {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "missing token: send the header \"Authorization: Bearer <token>\"",
        )
    };
    let header = headers.get(AUTHORIZATION).ok_or_else(missing)?;
    header
        .to_str()
        .ok()
        .and_then(|value| value.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim())
        .ok_or_else(missing)
}

fn bad_token() -> ApiError {
    ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", "invalid token")
}

/// Compares two tokens in time that depends only on their lengths, never on where they
/// differ.
fn same(presented: &str, expected: &str) -> bool {
    let (a, b) = (presented.as_bytes(), expected.as_bytes());
    let mut difference = u8::from(a.len() != b.len());
    for i in 0..a.len().max(b.len()) {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        difference |= x ^ y;
    }
    difference == 0
}

#[cfg(test)]
mod tests {
    use super::same;

    #[test]
    fn tokens_match_only_when_equal() {
        assert!(same("s3cret", "s3cret"));
        assert!(!same("s3cret", "s3creT"));
        assert!(!same("s3cret", "s3cret0"));
        assert!(!same("", "s3cret"));
        assert!(!same("s3cret\0", "s3cret"));
    }
}
