//! Versioned schema migrations, applied under one write lock.
//!
//! The migrations in `migrations/` are embedded with `sqlx::migrate!` and applied through
//! sqlx's `Migrate` operations, recording them in `baton_schema_migrations` rather than sqlx's
//! default table, so that baton's tables can share a database with an application's own.

use baton_core::{Error, ErrorKind, Migration as Applied, Result};
use sqlx::SqliteConnection;
use sqlx::migrate::{AppliedMigration, Migrate, Migration, Migrator};

use crate::error::from_migrate;
use crate::tx::{self, Writer};

/// The table that records applied migrations, prefixed like every baton table.
const MIGRATIONS_TABLE: &str = "baton_schema_migrations";

static MIGRATOR: Migrator = sqlx::migrate!("./migrations");

/// Applies every pending migration and answers those it applied, in order.
///
/// The whole run happens inside one `BEGIN IMMEDIATE` transaction (each migration becomes a
/// savepoint), so processes migrating the same file at once take turns and a failed migration
/// leaves nothing behind.
pub(crate) async fn run(write: &Writer) -> Result<Vec<Applied>> {
    let mut tx = tx::begin(write, "starting the migration transaction").await?;
    let applied = apply_pending(&mut tx).await?;
    tx::commit(tx, "committing the migrations").await?;
    Ok(applied)
}

async fn apply_pending(conn: &mut SqliteConnection) -> Result<Vec<Applied>> {
    conn.ensure_migrations_table(MIGRATIONS_TABLE).await.map_err(from_migrate)?;
    if let Some(version) = conn.dirty_version(MIGRATIONS_TABLE).await.map_err(from_migrate)? {
        return Err(schema(format!(
            "migration {version} is marked as failed in {MIGRATIONS_TABLE}; repair the database"
        )));
    }
    let applied = conn.list_applied_migrations(MIGRATIONS_TABLE).await.map_err(from_migrate)?;
    if let Some(unknown) = applied.iter().find(|done| !MIGRATOR.version_exists(done.version)) {
        return Err(schema(format!(
            "the database has migration {} applied, which this version of baton does not know; \
             upgrade baton",
            unknown.version
        )));
    }
    let mut now_applied = Vec::new();
    for migration in MIGRATOR.iter().filter(|m| !m.migration_type.is_down_migration()) {
        match applied.iter().find(|done| done.version == migration.version) {
            Some(done) => check_unchanged(done, migration)?,
            None => {
                conn.apply(MIGRATIONS_TABLE, migration).await.map_err(from_migrate)?;
                now_applied.push(Applied {
                    version: migration.version,
                    description: migration.description.to_string(),
                });
            }
        }
    }
    Ok(now_applied)
}

fn check_unchanged(done: &AppliedMigration, migration: &Migration) -> Result<()> {
    if done.checksum == migration.checksum {
        return Ok(());
    }
    Err(schema(format!(
        "migration {} ({}) was applied with different contents than this version of baton ships",
        migration.version, migration.description
    )))
}

fn schema(message: String) -> Error {
    Error::new(ErrorKind::Schema, format!("SQLite store: {message}"))
}
