//! Versioned schema migrations (`migrations/NNNN_name.sql`).

use baton_core::{Migration, Result};
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{AssertSqlSafe, PgPool};

use crate::error::{migrate_error, query_error};

/// The table recording which baton migrations were applied; distinct from sqlx's default
/// `_sqlx_migrations` so that it never clashes with the host application's own migrations.
pub const MIGRATIONS_TABLE: &str = "baton_schema_migrations";

/// Applies every migration not yet applied, under sqlx's migration lock, over a connection
/// of its own that is closed afterwards; answers those that were not applied before and are
/// now (a concurrent run may have applied some of them).
pub(crate) async fn run(options: &PgConnectOptions) -> Result<Vec<Migration>> {
    let pool = PgPoolOptions::new().max_connections(1).connect_lazy_with(options.clone());
    let applied = apply(&pool).await;
    pool.close().await;
    applied
}

async fn apply(pool: &PgPool) -> Result<Vec<Migration>> {
    let mut migrator = sqlx::migrate!();
    migrator.dangerous_set_table_name(MIGRATIONS_TABLE);
    let before = applied_versions(pool).await?;
    migrator.run(pool).await.map_err(migrate_error)?;
    Ok(migrator
        .iter()
        .filter(|migration| !before.contains(&migration.version))
        .map(|migration| Migration {
            version: migration.version,
            description: migration.description.to_string(),
        })
        .collect())
}

/// The versions applied so far; none when the table does not exist yet.
async fn applied_versions(pool: &PgPool) -> Result<Vec<i64>> {
    let exists: bool = sqlx::query_scalar("SELECT to_regclass($1) IS NOT NULL")
        .bind(MIGRATIONS_TABLE)
        .fetch_one(pool)
        .await
        .map_err(|err| query_error("reading the applied migrations", err))?;
    if !exists {
        return Ok(Vec::new());
    }
    let select = format!("SELECT version FROM {MIGRATIONS_TABLE} WHERE success");
    sqlx::query_scalar(AssertSqlSafe(select))
        .fetch_all(pool)
        .await
        .map_err(|err| query_error("reading the applied migrations", err))
}
