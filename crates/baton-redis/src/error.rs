//! Maps redis-rs errors onto baton's portable [`ErrorKind`]s.
//!
//! Nothing here retries: a command that failed with an unknown outcome is reported as such
//! ([`ErrorKind::Timeout`] or [`ErrorKind::Unavailable`]) and the caller reads back.

use std::fmt::Display;

use baton_core::{Error, ErrorKind};
use redis::{RedisError, ServerErrorKind};

use crate::url::Target;

/// Error codes of a server that refused service for now: busy running a script, out of memory,
/// unable to persist, or short of replicas.
const REFUSING_CODES: [&str; 4] = ["BUSY", "OOM", "MISCONF", "NOREPLICAS"];

/// The portable kind of a redis-rs error.
pub(crate) fn kind_of(err: &RedisError) -> ErrorKind {
    if err.is_timeout() {
        return ErrorKind::Timeout;
    }
    match err.kind() {
        redis::ErrorKind::Io | redis::ErrorKind::Parse => ErrorKind::Unavailable,
        redis::ErrorKind::Server(
            ServerErrorKind::BusyLoading
            | ServerErrorKind::ReadOnly
            | ServerErrorKind::TryAgain
            | ServerErrorKind::MasterDown
            | ServerErrorKind::ClusterDown,
        ) => ErrorKind::Unavailable,
        redis::ErrorKind::AuthenticationFailed => ErrorKind::InvalidInput,
        _ if err.code().is_some_and(|code| code == "NOAUTH" || code == "WRONGPASS") => {
            ErrorKind::InvalidInput
        }
        _ if err.code().is_some_and(|code| REFUSING_CODES.contains(&code)) => {
            ErrorKind::Unavailable
        }
        _ => ErrorKind::Internal,
    }
}

/// The error of a failed command; `action` says what was being done ("renewing lease x").
pub(crate) fn query_error(target: &Target, action: impl Display, err: &RedisError) -> Error {
    let kind = kind_of(err);
    let cause = match kind {
        ErrorKind::Timeout => "no answer in time: the outcome is unknown".to_string(),
        _ => target.scrub(&err.to_string()),
    };
    Error::new(kind, format!("{action} in Redis at {}: {cause}", target.endpoint))
}

/// The error of a failed attempt to connect to the target.
pub(crate) fn connect_error(target: &Target, err: &RedisError) -> Error {
    let endpoint = &target.endpoint;
    let cause = target.scrub(&err.to_string());
    if kind_of(err) == ErrorKind::InvalidInput {
        return Error::invalid_input(format!(
            "Redis at {endpoint} refused the credentials of the URL ({cause}): check the user \
             and password"
        ));
    }
    if err.detail().is_some_and(|detail| detail.contains("DB index is out of range")) {
        return Error::invalid_input(format!(
            "Redis at {endpoint} has no database {}: the URL's database index must be below the \
             server's `databases` setting (16 unless configured)",
            target.db()
        ));
    }
    let kind = match kind_of(err) {
        ErrorKind::Timeout => ErrorKind::Timeout,
        _ => ErrorKind::Unavailable,
    };
    Error::new(kind, format!("cannot connect to Redis at {endpoint}: {cause}"))
}

/// An answer the store cannot read: a bug, or keys changed by something other than baton.
pub(crate) fn malformed(what: impl Display) -> Error {
    Error::new(ErrorKind::Internal, format!("unexpected answer from Redis: {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn io(kind: std::io::ErrorKind) -> RedisError {
        RedisError::from(std::io::Error::from(kind))
    }

    #[test]
    fn transport_failures_and_timeouts_have_unknown_outcomes() {
        assert_eq!(kind_of(&io(std::io::ErrorKind::TimedOut)), ErrorKind::Timeout);
        assert_eq!(kind_of(&io(std::io::ErrorKind::BrokenPipe)), ErrorKind::Unavailable);
        assert!(kind_of(&io(std::io::ErrorKind::ConnectionReset)).outcome_unknown());
    }

    #[test]
    fn a_timed_out_command_says_its_outcome_is_unknown() {
        let target = crate::url::parse("redis://:pw@127.0.0.1:6390").unwrap();
        let err = query_error(&target, "acquiring lease x", &io(std::io::ErrorKind::TimedOut));
        assert_eq!(
            err.to_string(),
            "acquiring lease x in Redis at 127.0.0.1:6390/0: no answer in time: the outcome is \
             unknown"
        );
    }
}
