//! Versioned schema migrations (`migrations/NNNN_name.sql`).

use baton_core::Result;
use sqlx::PgPool;

use crate::error::migrate_error;

/// The table recording which baton migrations were applied; distinct from sqlx's default
/// `_sqlx_migrations` so that it never clashes with the host application's own migrations.
pub const MIGRATIONS_TABLE: &str = "baton_schema_migrations";

/// Applies every migration not yet applied, under sqlx's migration lock.
pub(crate) async fn run(pool: &PgPool) -> Result<()> {
    let mut migrator = sqlx::migrate!();
    migrator.dangerous_set_table_name(MIGRATIONS_TABLE);
    migrator.run(pool).await.map_err(migrate_error)
}
