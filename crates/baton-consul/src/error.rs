//! Consul's refusals and transport failures as baton's portable [`ErrorKind`]s.
//!
//! Nothing here retries: a request that failed with an unknown outcome is reported as such
//! ([`ErrorKind::Timeout`] or [`ErrorKind::Unavailable`]) and the caller reads back.

use std::fmt::Display;

use baton_core::{Error, ErrorKind};
use baton_http::Failure;

/// The error of a request that got no answer; `action` says what was being done.
pub(crate) fn failure_error(address: &str, action: impl Display, failure: &Failure) -> Error {
    match failure {
        Failure::Unreachable(why) => Error::new(
            ErrorKind::Unavailable,
            format!("{action}: cannot reach the Consul agent at {address} ({why})"),
        ),
        Failure::TimedOut => Error::new(
            ErrorKind::Timeout,
            format!("{action} in Consul at {address}: no answer in time: the outcome is unknown"),
        ),
        other => Error::new(
            ErrorKind::Unavailable,
            format!("{action} in Consul at {address}: {other}: the outcome is unknown"),
        ),
    }
}

/// The error of an answer with a status that is no success.
pub(crate) fn refusal(address: &str, action: impl Display, status: u16, body: &[u8]) -> Error {
    let text = baton_core::url::single_line(String::from_utf8_lossy(body).trim());
    match status {
        401 | 403 => Error::invalid_input(format!(
            "{action}: Consul at {address} refused the ACL token ({text}): set CONSUL_HTTP_TOKEN \
             to a token with write access to the key prefix and to sessions"
        )),
        // Consul answers 500 when it cannot serve (no leader, a raft timeout): a write may
        // still be applied.
        500..=599 => Error::new(
            ErrorKind::Unavailable,
            format!(
                "{action} in Consul at {address}: HTTP {status}: {text}: the outcome is unknown"
            ),
        ),
        _ => Error::new(
            ErrorKind::Internal,
            format!("{action} in Consul at {address}: HTTP {status}: {text}"),
        ),
    }
}

/// An answer the store cannot read: a bug, or keys changed by something other than baton.
pub(crate) fn malformed(what: impl Display) -> Error {
    Error::new(ErrorKind::Internal, format!("unexpected answer from Consul: {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_and_failures_map_to_kinds_on_one_line() {
        let err = refusal("h:1", "reading leases", 403, b"ACL not found\n");
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert!(err.to_string().contains("CONSUL_HTTP_TOKEN"), "{err}");
        let err = refusal("h:1", "renewing lease x", 500, b"No cluster leader");
        assert!(err.kind().outcome_unknown());
        let err = failure_error("h:1", "acquiring lease x", &Failure::TimedOut);
        assert_eq!(err.kind(), ErrorKind::Timeout);
        assert!(!err.to_string().contains('\n'));
    }
}
