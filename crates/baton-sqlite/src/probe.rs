//! Whether a write could begin now, for a tool that pauses processes sharing one database file
//! and must know that the one it paused holds up no other writer.

use std::path::Path;
use std::time::Duration;

use baton_core::{ErrorKind, Result};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{Connection, SqliteConnection};

use crate::error::{from_sqlx, is_busy};
use crate::turn::WriteGate;

const DOING: &str = "probing the write lock";

/// Whether a baton write on the database file at `database` could begin within `wait`: both
/// the writers' turn (`<database>.lock`) and SQLite's write lock come free within it.
///
/// A process paused while it holds either one holds up every writer of the file, in every
/// process, until it resumes. Fails only when the files cannot be opened.
pub async fn write_lock_free(database: &Path, wait: Duration) -> Result<bool> {
    let _turn = match WriteGate::beside(database).enter(wait, DOING).await {
        Ok(turn) => turn,
        Err(err) if err.kind() == ErrorKind::Timeout => return Ok(false),
        Err(err) => return Err(err),
    };
    let options = SqliteConnectOptions::new().filename(database).busy_timeout(wait);
    let mut conn =
        SqliteConnection::connect_with(&options).await.map_err(|err| from_sqlx(DOING, err))?;
    let free = match sqlx::raw_sql("BEGIN IMMEDIATE").execute(&mut conn).await {
        Ok(_) => {
            sqlx::raw_sql("ROLLBACK").execute(&mut conn).await.map_err(|e| from_sqlx(DOING, e))?;
            true
        }
        Err(err) if is_busy(&err) => false,
        Err(err) => return Err(from_sqlx(DOING, err)),
    };
    conn.close().await.map_err(|err| from_sqlx(DOING, err))?;
    Ok(free)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use sqlx::sqlite::SqliteConnectOptions;
    use sqlx::{Connection, SqliteConnection};

    use super::write_lock_free;
    use crate::turn::WriteGate;

    const SHORT: Duration = Duration::from_millis(50);

    #[tokio::test]
    async fn a_held_turn_or_a_held_sqlite_lock_each_answer_not_free() {
        let dir = tempfile::tempdir().unwrap();
        let database = dir.path().join("baton.db");
        let options = SqliteConnectOptions::new().filename(&database).create_if_missing(true);
        let mut writer = SqliteConnection::connect_with(&options).await.unwrap();
        assert!(write_lock_free(&database, SHORT).await.unwrap(), "nothing holds either lock");

        let turn = WriteGate::beside(&database).enter(SHORT, "holding the turn").await.unwrap();
        assert!(!write_lock_free(&database, SHORT).await.unwrap(), "the turn is held");
        drop(turn);

        sqlx::raw_sql("BEGIN IMMEDIATE").execute(&mut writer).await.unwrap();
        assert!(!write_lock_free(&database, SHORT).await.unwrap(), "SQLite's lock is held");
        sqlx::raw_sql("ROLLBACK").execute(&mut writer).await.unwrap();
        assert!(write_lock_free(&database, SHORT).await.unwrap(), "both came free again");
    }
}
