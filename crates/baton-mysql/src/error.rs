//! Maps sqlx errors onto baton's portable [`ErrorKind`]s.
//!
//! Nothing here retries: a lease statement that failed with an unknown outcome is reported as
//! such ([`ErrorKind::Unavailable`] or [`ErrorKind::Timeout`]) and the caller reads back.

use std::fmt::Display;

use baton_core::url::single_line;
use baton_core::{Error, ErrorKind};
use sqlx::mysql::MySqlDatabaseError;

/// Server error numbers meaning the schema is missing or older than this crate expects.
const SCHEMA_ERRORS: [u16; 3] = [
    1146, // ER_NO_SUCH_TABLE
    1054, // ER_BAD_FIELD_ERROR
    1305, // ER_SP_DOES_NOT_EXIST
];

/// Server error numbers meaning another writer won a race; the statement was rolled back.
const CONFLICT_ERRORS: [u16; 3] = [
    1062, // ER_DUP_ENTRY
    1213, // ER_LOCK_DEADLOCK
    1205, // ER_LOCK_WAIT_TIMEOUT
];

/// Server error numbers meaning the server went away or refused service.
const UNAVAILABLE_ERRORS: [u16; 6] = [
    1040, // ER_CON_COUNT_ERROR
    1053, // ER_SERVER_SHUTDOWN
    1927, // ER_CONNECTION_KILLED (MariaDB)
    2006, // CR_SERVER_GONE_ERROR
    2013, // CR_SERVER_LOST
    4031, // ER_CLIENT_INTERACTION_TIMEOUT (MySQL)
];

/// The server's error number, if the error came from the server.
pub(crate) fn number(err: &sqlx::Error) -> Option<u16> {
    match err {
        sqlx::Error::Database(db) => {
            db.try_downcast_ref::<MySqlDatabaseError>().map(|e| e.number())
        }
        _ => None,
    }
}

/// The portable kind of a sqlx error.
pub(crate) fn kind_of(err: &sqlx::Error) -> ErrorKind {
    match err {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => ErrorKind::Unavailable,
        sqlx::Error::PoolTimedOut => ErrorKind::Timeout,
        sqlx::Error::Database(_) => match number(err) {
            Some(code) if SCHEMA_ERRORS.contains(&code) => ErrorKind::Schema,
            Some(code) if CONFLICT_ERRORS.contains(&code) => ErrorKind::Conflict,
            Some(code) if UNAVAILABLE_ERRORS.contains(&code) => ErrorKind::Unavailable,
            Some(1969 | 3024) => ErrorKind::Timeout, // statement time exceeded
            _ => ErrorKind::Internal,
        },
        sqlx::Error::Migrate(_) => ErrorKind::Schema,
        _ => ErrorKind::Internal,
    }
}

/// The cause of a sqlx error on one line, without the crate's generic prefixes.
pub(crate) fn describe(err: &sqlx::Error) -> String {
    if let Some(tls) = crate::tls::explain(err) {
        return single_line(&tls);
    }
    let text = match err {
        sqlx::Error::Io(io) => io.to_string(),
        sqlx::Error::PoolTimedOut => "no connection available in time".to_string(),
        sqlx::Error::PoolClosed => "the connection pool was closed".to_string(),
        sqlx::Error::Database(db) => match number(err) {
            Some(code) => format!("{} (error {code})", db.message()),
            None => db.message().to_string(),
        },
        other => other.to_string(),
    };
    single_line(&text)
}

/// The error of a failed statement; `action` says what was being done ("renewing lease x").
pub(crate) fn query_error(action: impl Display, err: sqlx::Error) -> Error {
    let kind = kind_of(&err);
    let cause = describe(&err);
    let message = match kind {
        ErrorKind::Schema => format!(
            "{action}: the baton schema is missing or outdated in this MySQL database \
             ({cause}): run `baton migrate`"
        ),
        _ => format!("{action}: {cause}"),
    };
    Error::new(kind, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transport_failures_have_unknown_outcomes() {
        let io = sqlx::Error::Io(std::io::Error::from(std::io::ErrorKind::ConnectionReset));
        assert_eq!(kind_of(&io), ErrorKind::Unavailable);
        assert_eq!(kind_of(&sqlx::Error::PoolTimedOut), ErrorKind::Timeout);
        assert!(kind_of(&sqlx::Error::PoolTimedOut).outcome_unknown());
    }
}
