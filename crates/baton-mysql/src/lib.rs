//! The MySQL and MariaDB backend for baton: leases, jobs and their executions, and the operator
//! action log.
//!
//! Leases ([`MysqlLeaseStore`]) are rows whose expiry is judged on the server's clock
//! (`SYSDATE(6)`), fencing tokens come from a per-name counter row that outlives the lease row,
//! so that they never repeat, and releases wake waiters through named locks held as doorbells
//! (MySQL has no `LISTEN`/`NOTIFY`). Every acquire, renew, release and forced release commits
//! at most once.
//!
//! Jobs ([`MysqlJobStore`]) record every fire once under a unique key on its identity; workers
//! claim due executions with `FOR UPDATE SKIP LOCKED` and decide them with the shared rules of
//! `baton_core` while holding their jobs' rows, each claim one transaction under tokens from a
//! counter row. Idle workers learn of due executions through a wake-up channel: a counter row
//! raised by the writing transaction and a named lock kept by the backend that rang last, which
//! lets go of it to ring.
//!
//! The cluster store ([`MysqlClusterStore`]) keeps nodes, partitioned batches and their
//! partitions; each operation is one transaction that locks the rows it decides on in one
//! order, decides with the core's rules and commits once. Claims lock with `FOR UPDATE SKIP
//! LOCKED`; node and claim tokens come from a counter row; idle nodes learn of pending
//! partitions through a wake-up channel of their own.
//!
//! A transaction rolled back whole by a deadlock or a lock wait timeout runs again; one whose
//! commit failed is never retried. Sessions run at READ COMMITTED. Requires MariaDB 10.6+ or
//! MySQL 8.0.4+ (`FOR UPDATE SKIP LOCKED`, `JSON_TABLE`); tested on MariaDB 10.11.
//!
//! ```no_run
//! # async fn demo() -> baton_core::Result<()> {
//! let backend = baton_mysql::MysqlBackend::connect("mysql://app:secret@db:3306/app").await?;
//! backend.migrate().await?;
//! let leases = backend.leases();
//! let jobs = backend.jobs();
//! let cluster = backend.cluster();
//! # let _ = (leases, jobs, cluster);
//! # Ok(())
//! # }
//! ```
//!
//! The schema lives in tables prefixed `baton_` and is versioned in its own migrations table,
//! [`MIGRATIONS_TABLE`], so it never mixes with the host application's migrations.

mod actions;
mod backend;
mod bell;
mod changes;
mod cluster;
mod connections;
mod error;
pub mod fence;
mod jobs;
mod lease;
mod migrate;
mod queries;
mod row;
mod terms;
mod tls;
mod tx;
mod url;
mod version;
mod wakeups;

pub use actions::MysqlActionStore;
pub use backend::MysqlBackend;
pub use cluster::MysqlClusterStore;
pub use fence::{FenceError, check_and_bump};
pub use jobs::MysqlJobStore;
pub use lease::MysqlLeaseStore;
pub use migrate::MIGRATIONS_TABLE;
