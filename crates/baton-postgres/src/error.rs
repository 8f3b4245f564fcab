//! Maps sqlx errors onto baton's portable [`ErrorKind`]s.
//!
//! Nothing here retries: a lease statement that failed with an unknown outcome is reported as
//! such ([`ErrorKind::Unavailable`] or [`ErrorKind::Timeout`]) and the caller reads back.

use std::fmt::Display;

use baton_core::{Error, ErrorKind};
use sqlx::migrate::MigrateError;

use baton_core::url::single_line;

/// SQLSTATEs meaning the schema is missing or older than this crate expects.
const SCHEMA_STATES: [&str; 3] = [
    "42P01", // undefined_table
    "42883", // undefined_function
    "42703", // undefined_column
];

/// SQLSTATEs meaning another writer won a race.
const CONFLICT_STATES: [&str; 4] = [
    "23505", // unique_violation
    "40001", // serialization_failure
    "40P01", // deadlock_detected
    "55P03", // lock_not_available
];

/// SQLSTATEs meaning the server went away or refused service.
const UNAVAILABLE_STATES: [&str; 5] = [
    "57P01", // admin_shutdown
    "57P02", // crash_shutdown
    "57P03", // cannot_connect_now
    "53300", // too_many_connections
    "25P03", // idle_in_transaction_session_timeout
];

/// The portable kind of a sqlx error.
pub(crate) fn kind_of(err: &sqlx::Error) -> ErrorKind {
    match err {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => ErrorKind::Unavailable,
        sqlx::Error::PoolTimedOut => ErrorKind::Timeout,
        sqlx::Error::Database(db) => match db.code().as_deref() {
            Some(code) if SCHEMA_STATES.contains(&code) => ErrorKind::Schema,
            Some(code) if CONFLICT_STATES.contains(&code) => ErrorKind::Conflict,
            Some(code) if UNAVAILABLE_STATES.contains(&code) || code.starts_with("08") => {
                ErrorKind::Unavailable
            }
            Some("57014") => ErrorKind::Timeout, // query_canceled (statement_timeout)
            _ => ErrorKind::Internal,
        },
        sqlx::Error::Migrate(err) => migrate_kind(err),
        _ => ErrorKind::Internal,
    }
}

fn migrate_kind(err: &MigrateError) -> ErrorKind {
    match err {
        MigrateError::Execute(inner) | MigrateError::ExecuteMigration(inner, _) => {
            match kind_of(inner) {
                ErrorKind::Unavailable => ErrorKind::Unavailable,
                ErrorKind::Timeout => ErrorKind::Timeout,
                _ => ErrorKind::Schema,
            }
        }
        _ => ErrorKind::Schema,
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
        sqlx::Error::Database(db) => match db.code() {
            Some(code) => format!("{} (SQLSTATE {code})", db.message()),
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
            "{action}: the baton schema is missing or outdated in this PostgreSQL database \
             ({cause}): run `baton migrate`"
        ),
        _ => format!("{action}: {cause}"),
    };
    Error::new(kind, message)
}

/// The error of a failed connection attempt to `endpoint` (host:port, never the password).
pub(crate) fn connect_error(endpoint: &str, err: &sqlx::Error) -> Error {
    Error::new(
        ErrorKind::Unavailable,
        format!("cannot connect to PostgreSQL at {endpoint}: {}", describe(err)),
    )
}

/// The error of a failed migration run.
pub(crate) fn migrate_error(err: MigrateError) -> Error {
    let kind = migrate_kind(&err);
    let cause = match &err {
        MigrateError::Execute(inner) => describe(inner),
        MigrateError::ExecuteMigration(inner, version) => {
            format!("migration {version}: {}", describe(inner))
        }
        other => single_line(&other.to_string()),
    };
    Error::new(kind, format!("migrating the baton schema in PostgreSQL: {cause}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transport_failures_have_unknown_outcomes() {
        let io = sqlx::Error::Io(std::io::Error::from(std::io::ErrorKind::ConnectionReset));
        assert_eq!(kind_of(&io), ErrorKind::Unavailable);
        assert_eq!(kind_of(&sqlx::Error::PoolClosed), ErrorKind::Unavailable);
        assert_eq!(kind_of(&sqlx::Error::PoolTimedOut), ErrorKind::Timeout);
        assert!(kind_of(&sqlx::Error::PoolTimedOut).outcome_unknown());
    }

    #[test]
    fn other_failures_are_internal() {
        assert_eq!(kind_of(&sqlx::Error::RowNotFound), ErrorKind::Internal);
        let err = query_error("renewing lease x", sqlx::Error::PoolTimedOut);
        assert_eq!(err.to_string(), "renewing lease x: no connection available in time");
    }
}
