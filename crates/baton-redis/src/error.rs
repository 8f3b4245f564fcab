//! Maps redis-rs errors onto baton's portable [`ErrorKind`]s.
//!
//! Nothing here retries: a command that failed with an unknown outcome is reported as such
//! ([`ErrorKind::Timeout`] or [`ErrorKind::Unavailable`]) and the caller reads back.

use std::fmt::Display;

use baton_core::{Error, ErrorKind};
use redis::{RedisError, ServerError};

use crate::url::Target;

/// Error codes of a server that refused service for now: loading its dataset, a replica, busy
/// running a script, out of memory, unable to persist, or short of replicas.
const REFUSING_CODES: [&str; 9] = [
    "LOADING",
    "READONLY",
    "TRYAGAIN",
    "MASTERDOWN",
    "CLUSTERDOWN",
    "BUSY",
    "OOM",
    "MISCONF",
    "NOREPLICAS",
];

/// Error codes of a server that refused the credentials, or was given none.
const CREDENTIAL_CODES: [&str; 2] = ["NOAUTH", "WRONGPASS"];

/// The first error the server answered, alone or within a pipeline.
fn server_error(err: &RedisError) -> Option<ServerError> {
    err.clone().into_server_errors()?.first().map(|(_, first)| first.clone())
}

/// The portable kind of a redis-rs error.
pub(crate) fn kind_of(err: &RedisError) -> ErrorKind {
    if err.is_timeout() {
        return ErrorKind::Timeout;
    }
    match err.kind() {
        redis::ErrorKind::Io | redis::ErrorKind::Parse => ErrorKind::Unavailable,
        redis::ErrorKind::AuthenticationFailed => ErrorKind::InvalidInput,
        _ => match server_error(err) {
            Some(answer) if REFUSING_CODES.contains(&answer.code()) => ErrorKind::Unavailable,
            Some(answer) if CREDENTIAL_CODES.contains(&answer.code()) => ErrorKind::InvalidInput,
            _ => ErrorKind::Internal,
        },
    }
}

/// The cause of a redis-rs error as the server or the transport put it, on one line.
fn describe(target: &Target, err: &RedisError) -> String {
    let text = match server_error(err) {
        Some(answer) => format!("{} {}", answer.code(), answer.details().unwrap_or_default()),
        None => err.to_string(),
    };
    target.scrub(&text)
}

/// The error of a failed command; `action` says what was being done ("renewing lease x").
pub(crate) fn query_error(target: &Target, action: impl Display, err: &RedisError) -> Error {
    let endpoint = &target.endpoint;
    match kind_of(err) {
        ErrorKind::Timeout => Error::new(
            ErrorKind::Timeout,
            format!("{action} in Redis at {endpoint}: no answer in time: the outcome is unknown"),
        ),
        ErrorKind::InvalidInput => Error::invalid_input(format!(
            "{action}: Redis at {endpoint} asks for credentials ({}): check the user and password \
             in the URL",
            describe(target, err)
        )),
        kind => {
            Error::new(kind, format!("{action} in Redis at {endpoint}: {}", describe(target, err)))
        }
    }
}

/// The error of a failed attempt to connect to the target.
pub(crate) fn connect_error(target: &Target, err: &RedisError) -> Error {
    let endpoint = &target.endpoint;
    let cause = describe(target, err);
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
    if target.tls.is_none() {
        return Error::new(kind, format!("cannot connect to Redis at {endpoint}: {cause}"));
    }
    let hint = match ["certificate", "alert", "TLS", "tls"].iter().any(|word| cause.contains(word))
    {
        true => ": check the ca=, cert= and key= files of the URL",
        false => "",
    };
    Error::new(kind, format!("cannot connect to Redis at {endpoint} over TLS: {cause}{hint}"))
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
