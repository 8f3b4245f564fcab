//! Mapping of sqlx and SQLite failures onto [`baton_core::ErrorKind`].

use baton_core::{Error, ErrorKind};
use sqlx::migrate::MigrateError;

// Primary SQLite result codes (the low byte of an extended code).
const SQLITE_PERM: i32 = 3;
const SQLITE_BUSY: i32 = 5;
const SQLITE_LOCKED: i32 = 6;
const SQLITE_READONLY: i32 = 8;
const SQLITE_IOERR: i32 = 10;
const SQLITE_CORRUPT: i32 = 11;
const SQLITE_FULL: i32 = 13;
const SQLITE_CANTOPEN: i32 = 14;
const SQLITE_PROTOCOL: i32 = 15;
const SQLITE_NOTADB: i32 = 26;

const RUN_MIGRATE: &str = "run `baton migrate` to create or upgrade the schema";

/// Maps a sqlx error onto a portable error whose message says what failed (`doing`).
pub(crate) fn from_sqlx(doing: &str, err: sqlx::Error) -> Error {
    let (kind, detail) = classify(&err);
    Error::new(kind, format!("SQLite store: {doing}: {detail}")).with_source(err)
}

/// Maps a migration failure onto a portable error.
pub(crate) fn from_migrate(err: MigrateError) -> Error {
    let kind = match &err {
        MigrateError::Execute(inner) | MigrateError::ExecuteMigration(inner, _) => {
            classify(inner).0
        }
        MigrateError::VersionMissing(_)
        | MigrateError::VersionMismatch(_)
        | MigrateError::VersionTooNew(..)
        | MigrateError::VersionTooOld(..)
        | MigrateError::Dirty(_) => ErrorKind::Schema,
        _ => ErrorKind::Internal,
    };
    Error::new(kind, format!("SQLite store: migrating the schema: {err}")).with_source(err)
}

/// Whether SQLite answered busy or locked (another connection holds a conflicting lock).
pub(crate) fn is_busy(err: &sqlx::Error) -> bool {
    matches!(sqlite_code(err).map(|code| code & 0xff), Some(SQLITE_BUSY | SQLITE_LOCKED))
}

fn sqlite_code(err: &sqlx::Error) -> Option<i32> {
    match err {
        sqlx::Error::Database(db) => db.code().and_then(|code| code.parse::<i32>().ok()),
        _ => None,
    }
}

/// The portable kind of a sqlx error and a one-line description of it.
pub(crate) fn classify(err: &sqlx::Error) -> (ErrorKind, String) {
    match err {
        sqlx::Error::Database(db) => {
            let message = db.message();
            let code = sqlite_code(err).unwrap_or(0);
            if message.starts_with("no such table") || message.starts_with("no such column") {
                return (ErrorKind::Schema, format!("{message}; {RUN_MIGRATE}"));
            }
            let kind = match code & 0xff {
                SQLITE_BUSY | SQLITE_LOCKED => {
                    return (
                        ErrorKind::Timeout,
                        format!("{message} (another process held the lock past the busy timeout)"),
                    );
                }
                SQLITE_PERM | SQLITE_READONLY | SQLITE_IOERR | SQLITE_CORRUPT | SQLITE_FULL
                | SQLITE_CANTOPEN | SQLITE_PROTOCOL | SQLITE_NOTADB => ErrorKind::Unavailable,
                _ => ErrorKind::Internal,
            };
            (kind, message.to_string())
        }
        sqlx::Error::Io(_) | sqlx::Error::PoolClosed | sqlx::Error::WorkerCrashed => {
            (ErrorKind::Unavailable, err.to_string())
        }
        sqlx::Error::PoolTimedOut => {
            (ErrorKind::Timeout, "timed out waiting for a connection of this process".to_string())
        }
        _ => (ErrorKind::Internal, err.to_string()),
    }
}

/// An error for a stored value this version of baton cannot read.
pub(crate) fn corrupt(what: &str, value: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorKind::Internal,
        format!("SQLite store: unreadable {what} {value} in the database"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_and_io_failures_have_unknown_outcomes() {
        assert_eq!(from_sqlx("x", sqlx::Error::PoolTimedOut).kind(), ErrorKind::Timeout);
        assert_eq!(from_sqlx("x", sqlx::Error::PoolClosed).kind(), ErrorKind::Unavailable);
        let io = sqlx::Error::Io(std::io::Error::other("disk"));
        assert!(from_sqlx("x", io).kind().outcome_unknown());
        assert_eq!(from_sqlx("x", sqlx::Error::RowNotFound).kind(), ErrorKind::Internal);
    }
}
