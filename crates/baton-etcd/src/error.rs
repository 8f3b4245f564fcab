//! etcd's refusals and transport failures as baton's portable [`ErrorKind`]s.
//!
//! Nothing here retries: a request that failed with an unknown outcome is reported as such
//! ([`ErrorKind::Timeout`] or [`ErrorKind::Unavailable`]) and the caller reads back.

use std::fmt::Display;

use baton_core::{Error, ErrorKind};
use serde::Deserialize;

use baton_http::Failure;

/// A refusal as the gateway writes it: the gRPC status code and message.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct Refusal {
    #[serde(default)]
    pub(crate) code: i32,
    #[serde(default)]
    pub(crate) message: String,
}

/// gRPC status codes etcd answers with.
mod code {
    pub(super) const INVALID_ARGUMENT: i32 = 3;
    pub(super) const DEADLINE_EXCEEDED: i32 = 4;
    pub(super) const NOT_FOUND: i32 = 5;
    pub(super) const PERMISSION_DENIED: i32 = 7;
    pub(super) const FAILED_PRECONDITION: i32 = 9;
    pub(super) const UNAVAILABLE: i32 = 14;
    pub(super) const UNAUTHENTICATED: i32 = 16;
}

impl Refusal {
    /// Reads a refusal from an answer's body; a body that is not one becomes its own text.
    pub(crate) fn read(status: u16, body: &[u8]) -> Refusal {
        serde_json::from_slice(body).unwrap_or_else(|_| Refusal {
            code: 0,
            message: format!("HTTP {status}: {}", String::from_utf8_lossy(body).trim()),
        })
    }

    /// Whether the authentication token is no longer valid (etcd forgets tokens after a while
    /// and on restart): the request was refused, so it can be sent again with a new token.
    pub(crate) fn is_stale_token(&self) -> bool {
        self.message.contains("invalid auth token")
    }

    /// Whether the member cannot serve now (no leader, a leader change, a timed-out proposal):
    /// the request may still be applied.
    pub(crate) fn is_unavailable(&self) -> bool {
        matches!(self.code, code::UNAVAILABLE | code::DEADLINE_EXCEEDED)
    }

    fn is_credentials(&self) -> bool {
        matches!(self.code, code::UNAUTHENTICATED | code::PERMISSION_DENIED)
            || (matches!(self.code, code::INVALID_ARGUMENT | code::FAILED_PRECONDITION)
                && ["user name", "authentication", "password"]
                    .iter()
                    .any(|word| self.message.contains(word)))
    }

    /// The error of a refused request; `action` says what was being done ("renewing lease x").
    pub(crate) fn error(&self, endpoint: &str, action: impl Display) -> Error {
        let message = &self.message;
        if self.is_credentials() {
            return Error::invalid_input(format!(
                "{action}: etcd at {endpoint} refused the request ({message}): check the user \
                 and password in the URL and the user's permissions on the key prefix baton/"
            ));
        }
        if message.contains("HTTPS server") {
            return tls_only(endpoint);
        }
        let kind = match self.code {
            _ if self.is_unavailable() => ErrorKind::Unavailable,
            // etcd answers NotFound only for an etcd lease that no longer exists.
            code::NOT_FOUND => ErrorKind::NotFound,
            _ => ErrorKind::Internal,
        };
        Error::new(kind, format!("{action} in etcd at {endpoint}: {message}"))
    }
}

/// The error of a plain URL naming a member that serves TLS only.
pub(crate) fn tls_only(member: &str) -> Error {
    Error::invalid_input(format!(
        "etcd at {member} serves TLS only: use etcds:// (with ?ca=PATH when a private CA signed \
         its certificate)"
    ))
}

/// The error of a request that got no answer.
pub(crate) fn failure_error(endpoint: &str, action: impl Display, failure: &Failure) -> Error {
    match failure {
        Failure::Unreachable(why) => Error::new(
            ErrorKind::Unavailable,
            format!("{action}: cannot reach etcd at {endpoint} ({why})"),
        ),
        Failure::TimedOut => Error::new(
            ErrorKind::Timeout,
            format!("{action} in etcd at {endpoint}: no answer in time: the outcome is unknown"),
        ),
        Failure::Lost(why) => Error::new(
            ErrorKind::Unavailable,
            format!(
                "{action} in etcd at {endpoint}: the connection failed ({why}): the outcome is unknown"
            ),
        ),
        other => Error::new(
            ErrorKind::Unavailable,
            format!("{action} in etcd at {endpoint}: {other}: the outcome is unknown"),
        ),
    }
}

/// An answer the store cannot read: a bug, or keys changed by something other than baton.
pub(crate) fn malformed(what: impl Display) -> Error {
    Error::new(ErrorKind::Internal, format!("unexpected answer from etcd: {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_map_to_kinds_with_one_line() {
        let refusal = Refusal::read(
            503,
            br#"{"error":"etcdserver: leader changed","message":"etcdserver: leader changed","code":14}"#,
        );
        let err = refusal.error("h:1", "acquiring lease x");
        assert_eq!(err.kind(), ErrorKind::Unavailable);
        assert!(err.kind().outcome_unknown());
        let refusal = Refusal::read(
            400,
            br#"{"message":"etcdserver: authentication failed, invalid user ID or password","code":3}"#,
        );
        assert_eq!(refusal.error("h:1", "connecting").kind(), ErrorKind::InvalidInput);
        let https = Refusal::read(400, b"Client sent an HTTP request to an HTTPS server.\n");
        let err = https.error("h:1", "connecting");
        assert!(err.to_string().contains("serves TLS only: use etcds://"), "{err}");
        assert!(!err.to_string().contains('\n'));
    }

    #[test]
    fn a_request_without_answer_has_an_unknown_outcome() {
        let err = failure_error("h:1", "renewing lease x", &Failure::TimedOut);
        assert_eq!(err.kind(), ErrorKind::Timeout);
        assert!(err.to_string().ends_with("the outcome is unknown"), "{err}");
    }
}
