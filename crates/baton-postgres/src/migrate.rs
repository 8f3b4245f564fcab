//! Versioned schema migrations (`migrations/NNNN_name.sql`).

use baton_core::Result;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};

use crate::error::migrate_error;

/// The table recording which baton migrations were applied; distinct from sqlx's default
/// `_sqlx_migrations` so that it never clashes with the host application's own migrations.
pub const MIGRATIONS_TABLE: &str = "baton_schema_migrations";

/// Applies every migration not yet applied, under sqlx's migration lock, over a connection
/// of its own that is closed afterwards.
pub(crate) async fn run(options: &PgConnectOptions) -> Result<()> {
    let pool = PgPoolOptions::new().max_connections(1).connect_lazy_with(options.clone());
    let mut migrator = sqlx::migrate!();
    migrator.dangerous_set_table_name(MIGRATIONS_TABLE);
    let applied = migrator.run(&pool).await.map_err(migrate_error);
    pool.close().await;
    applied
}
