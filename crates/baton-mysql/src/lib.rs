//! The MySQL and MariaDB backend for baton.
//!
//! Leases are rows whose expiry is judged on the server's clock (`SYSDATE(6)`), fencing tokens
//! come from a per-name counter row that outlives the lease row, so that they never repeat, and
//! releases wake waiters through named locks held as doorbells (MySQL has no `LISTEN`/`NOTIFY`).
//! Every acquire, renew, release and forced release commits once. Sessions run at READ
//! COMMITTED. Requires MariaDB 10.6+ or MySQL 8.0.1+ (`FOR UPDATE SKIP LOCKED`).
//!
//! ```no_run
//! # async fn demo() -> baton_core::Result<()> {
//! let backend = baton_mysql::MysqlBackend::connect("mysql://app:secret@db:3306/app").await?;
//! backend.migrate().await?;
//! let leases = backend.leases();
//! # let _ = leases;
//! # Ok(())
//! # }
//! ```
//!
//! The schema lives in tables prefixed `baton_` and is versioned in its own migrations table,
//! [`MIGRATIONS_TABLE`], so it never mixes with the host application's migrations.

mod backend;
mod bell;
mod changes;
mod error;
pub mod fence;
mod lease;
mod migrate;
mod queries;
mod row;
mod tls;
mod url;
mod version;

pub use backend::MysqlBackend;
pub use fence::{FenceError, check_and_bump};
pub use lease::MysqlLeaseStore;
pub use migrate::MIGRATIONS_TABLE;
