//! Versioned schema migrations (`migrations/NNNN_name.sql`), one DDL statement each.
//!
//! MySQL commits every DDL statement implicitly, so a failed migration cannot be rolled back
//! and sqlx's migrator would leave it marked dirty. Each migration here is one statement that
//! can run again harmlessly, recorded only once it succeeded: after a failure, running again
//! is safe.

use baton_core::{Error, Migration, Result};
use sqlx::mysql::MySqlConnectOptions;
use sqlx::{Connection, MySqlConnection};

use crate::error::{describe, kind_of, query_error};

/// The table recording which baton migrations were applied; distinct from sqlx's default
/// `_sqlx_migrations` so that it never clashes with the host application's own migrations.
pub const MIGRATIONS_TABLE: &str = "baton_schema_migrations";

/// The named lock that keeps concurrent migration runs apart, and how long a run waits for it.
const LOCK: &str = "baton_schema_migrations";
const LOCK_WAIT_SECONDS: i64 = 60;

/// Applies every migration not yet applied, under a named lock, over a connection of its own
/// that is closed afterwards; answers those it applied, in order.
pub(crate) async fn run(options: &MySqlConnectOptions) -> Result<Vec<Migration>> {
    let action = "migrating the baton schema in MySQL";
    let mut conn =
        MySqlConnection::connect_with(options).await.map_err(|err| query_error(action, err))?;
    let applied = apply_all(&mut conn).await;
    let _ = conn.close().await;
    applied
}

async fn apply_all(conn: &mut MySqlConnection) -> Result<Vec<Migration>> {
    let action = "migrating the baton schema in MySQL";
    let locked: Option<i64> = sqlx::query_scalar("SELECT GET_LOCK(?, ?)")
        .bind(LOCK)
        .bind(LOCK_WAIT_SECONDS)
        .fetch_one(&mut *conn)
        .await
        .map_err(|err| query_error(action, err))?;
    if locked != Some(1) {
        return Err(Error::new(
            baton_core::ErrorKind::Timeout,
            format!("{action}: another migration run held the lock for {LOCK_WAIT_SECONDS}s"),
        ));
    }
    let create = format!(
        "CREATE TABLE IF NOT EXISTS {MIGRATIONS_TABLE} (version BIGINT NOT NULL PRIMARY KEY, \
         description VARCHAR(255) NOT NULL, applied_at TIMESTAMP(6) NOT NULL DEFAULT \
         CURRENT_TIMESTAMP(6)) ENGINE = InnoDB"
    );
    sqlx::raw_sql(sqlx::AssertSqlSafe(create))
        .execute(&mut *conn)
        .await
        .map_err(|err| query_error(action, err))?;
    let done: Vec<i64> =
        sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT version FROM {MIGRATIONS_TABLE}")))
            .fetch_all(&mut *conn)
            .await
            .map_err(|err| query_error(action, err))?;
    let mut applied = Vec::new();
    for migration in sqlx::migrate!().migrations.iter() {
        if done.contains(&migration.version) {
            continue;
        }
        let file =
            format!("{:04}_{}.sql", migration.version, migration.description.replace(' ', "_"));
        let failed = |err: sqlx::Error| {
            Error::new(
                kind_of(&err),
                format!(
                    "{action}: migration {file} failed: {}; the migrations before it are \
                     applied, and running `baton migrate` again is safe",
                    describe(&err)
                ),
            )
        };
        sqlx::raw_sql(migration.sql.clone()).execute(&mut *conn).await.map_err(failed)?;
        let record = format!("INSERT INTO {MIGRATIONS_TABLE} (version, description) VALUES (?, ?)");
        sqlx::query(sqlx::AssertSqlSafe(record))
            .bind(migration.version)
            .bind(&*migration.description)
            .execute(&mut *conn)
            .await
            .map_err(failed)?;
        applied.push(Migration {
            version: migration.version,
            description: migration.description.to_string(),
        });
    }
    Ok(applied)
}
