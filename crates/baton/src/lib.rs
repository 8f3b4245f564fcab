//! baton: leases with fencing tokens and leader election over the stores you already run.
//!
//! baton is used three ways: this library, the `baton agent` (commands as cluster-wide cron and
//! partitioned jobs, with an HTTP API and a dashboard) and `baton exec` (the guard around one
//! command). In the library:
//!
//! - [`connect`] opens a backend by URL (`sqlite://`, `postgres://`, `mysql://`, each behind the
//!   feature of its name; [`connect_split`] keeps leases in Redis, etcd or ZooKeeper).
//! - An [`Elector`] holds leases: [`Elector::acquire`] waits for one and answers a
//!   [`LeaderGuard`] with the term's fencing token; [`Elector::campaign`] campaigns in the
//!   background and publishes [`Leadership`] on a watch channel. Pass the token to every write
//!   you protect (a fenced sink rejects a stale holder's writes).
//! - The [`scheduler`] runs cron, interval and one-off jobs once per fire across every node.
//! - The [`cluster`] spreads partitioned batch jobs over the live nodes.
//!
//! ```no_run
//! # async fn example() -> baton::Result<()> {
//! let backend = baton::connect("sqlite://baton.db").await?;
//! backend.migrate().await?;
//! let elector = baton::Elector::new(backend.leases(), baton::ElectorConfig::default())?;
//! let guard = elector.acquire(&"settlement".parse()?).await?;
//! // Do the work while the lease is held; pass guard.token() to every write.
//! guard.ensure_valid()?;
//! guard.release().await?;
//! # Ok(())
//! # }
//! ```
//!
//! The crate's examples run each use end to end on an embedded SQLite file: `fenced_sink`
//! (leader election with a fenced write), `cron_job` and `partitioned_job`
//! (`cargo run -p baton --example cron_job`).
//!
//! # Handles and their lifecycle
//!
//! The long-lived handles follow the same rules:
//!
//! - **Dropping stops at once**, as a crash would: an [`Elector`] (its last clone) ends every
//!   term and releases its leases in the background; a [`Campaign`] stops campaigning and
//!   releases the lease if held; a [`Scheduler`](scheduler::Scheduler) or
//!   [`Cluster`](cluster::Cluster) stops its work, cancelling what runs under its claims
//!   without recording it (the leader retries or moves it, as after a crash). A dropped
//!   [`LeaderGuard`] releases its lease in the background.
//! - **`shutdown(&self)` is graceful** and waits for the end: [`Elector::shutdown`],
//!   [`Scheduler::shutdown`](scheduler::Scheduler::shutdown) (running handlers finish within
//!   the grace period, then the leadership is released) and
//!   [`Cluster::shutdown`](cluster::Cluster::shutdown) (the node also leaves the cluster, which
//!   hands its partitions over at once). Calling it again waits for the same end.
//!   [`LeaderGuard::release`] is the graceful end of one term.
//! - **A fatal error closes the leadership channel.** A campaign stops for good when the
//!   store refuses an acquisition for a reason that does not pass (not unavailable, timed out
//!   or conflicting) or its elector shut down: [`Campaign::leader`] then answers the error,
//!   and the channels of [`Campaign::watch`], `Scheduler::leadership` and
//!   `Cluster::leadership` close. Passing errors (a store unreachable for a while) are retried.
//! - **Work bound to a claim has a cancellation token**: [`LeaderHandle::cancellation_token`],
//!   [`JobContext::cancellation_token`](scheduler::JobContext::cancellation_token) and
//!   [`PartitionContext::cancellation_token`](cluster::PartitionContext::cancellation_token)
//!   fire when the term, the execution or the partition ends; hand them to the tasks you start.

mod backend;
mod claim;
pub mod cluster;
pub mod elector;
mod handler_error;
pub mod metrics;
mod planted;
pub mod scheduler;
#[cfg(test)]
mod simulation;

pub use backend::{Backend, Migrated, UrlKind, connect, connect_leases, connect_split, url_kind};
pub use baton_core::url::redact;
pub use baton_core::{
    ChangeReason, Cursor, Error, ErrorKind, FencingToken, HistoryParams, HolderId, LeaderChange,
    Lease, LeaseName, LeaseStore, Migration, Page, Result, StoreTime,
};
pub use elector::{
    Acquisition, Campaign, Elector, ElectorConfig, LeaderGuard, LeaderHandle, Leadership,
};
pub use handler_error::HandlerError;

#[cfg(feature = "azblob")]
pub use baton_azblob as azblob;
#[cfg(feature = "consul")]
pub use baton_consul as consul;
/// The core vocabulary and backend traits, for backend authors and advanced use.
pub use baton_core as core;
#[cfg(feature = "dynamodb")]
pub use baton_dynamodb as dynamodb;
#[cfg(feature = "etcd")]
pub use baton_etcd as etcd;
#[cfg(feature = "kube")]
pub use baton_kube as kube;
#[cfg(feature = "mysql")]
pub use baton_mysql as mysql;
#[cfg(feature = "postgres")]
pub use baton_postgres as postgres;
#[cfg(feature = "redis")]
pub use baton_redis as redis;
#[cfg(feature = "sqlite")]
pub use baton_sqlite as sqlite;
#[cfg(feature = "zookeeper")]
pub use baton_zookeeper as zookeeper;
