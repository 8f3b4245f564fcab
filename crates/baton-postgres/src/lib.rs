//! The PostgreSQL backend for baton.
//!
//! Leases are rows whose expiry is judged on the server's clock (`now()`), fencing tokens come
//! from a sequence so that they never repeat, and releases wake waiters through
//! `LISTEN`/`NOTIFY`. Every acquire, renew, release and forced release is exactly one statement
//! and one commit, leader-change record and notification included. Jobs and their executions
//! ([`PostgresJobStore`]) follow the same rule: claiming, heartbeating and completing are one
//! statement each, claimed with `FOR UPDATE SKIP LOCKED`, and recording a batch of fires is one
//! statement after one that locks its jobs' rows, in one transaction.
//!
//! ```no_run
//! # async fn demo() -> baton_core::Result<()> {
//! let backend = baton_postgres::PostgresBackend::connect("postgres://app@db:5432/app").await?;
//! backend.migrate().await?;
//! let leases = backend.leases();
//! # let _ = leases;
//! # Ok(())
//! # }
//! ```
//!
//! The schema lives in tables prefixed `baton_` and is versioned in its own migrations table,
//! [`MIGRATIONS_TABLE`], so it never mixes with the host application's migrations.

mod actions;
mod backend;
mod changes;
mod checkpoint;
mod cluster;
mod connections;
mod error;
pub mod fence;
mod jobs;
mod lease;
mod migrate;
mod queries;
mod row;
mod tls;
mod url;
mod wakeups;

pub use actions::PostgresActionStore;
pub use backend::PostgresBackend;
pub use checkpoint::checkpoint_in;
pub use cluster::PostgresClusterStore;
pub use fence::{FenceError, check_and_bump};
pub use jobs::PostgresJobStore;
pub use lease::PostgresLeaseStore;
pub use migrate::MIGRATIONS_TABLE;

/// The channel on which releases are announced; the payload is the lease name.
pub const RELEASE_CHANNEL: &str = "baton_lease_released";

/// The channel on which workers are told that executions became due (recorded fires, triggers,
/// retries, a job freed while a fire waits); the payload is empty.
pub const DUE_CHANNEL: &str = "baton_execution_due";

/// The channel on which nodes are told that partitions became pending (a batch created,
/// partitions moved off a departed node); the payload is empty.
pub const PENDING_CHANNEL: &str = "baton_partition_pending";
