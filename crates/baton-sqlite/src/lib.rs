//! The SQLite backend for baton: the embedded default.
//!
//! Every process that shares one database file on one host coordinates through it: leases,
//! jobs and executions are rows decided inside `BEGIN IMMEDIATE` transactions, fencing tokens
//! (of leases and executions alike) come from one counter row that never goes down, and
//! releases and newly due executions wake waiters in other processes through Unix datagram
//! sockets in directories beside the database file.
//!
//! ```no_run
//! # async fn example() -> baton_core::Result<()> {
//! use baton_core::LeaseStore;
//!
//! let backend = baton_sqlite::SqliteBackend::connect("sqlite://baton.db").await?;
//! backend.migrate().await?;
//! let leases = backend.leases();
//! println!("store time: {}", leases.now().await?);
//! # Ok(())
//! # }
//! ```
//!
//! # Store time
//!
//! SQLite has no server, so the store's clock is the host's wall clock, read inside each write
//! transaction once its lock is held. Every process sharing the file runs on the same host and
//! reads the same clock, so expiry is judged on one clock (invariant I1) as long as that clock
//! is not stepped backwards or forwards by large amounts; keep it disciplined (NTP slewing).
//!
//! # Writers take turns
//!
//! Before `BEGIN IMMEDIATE`, every baton write takes an exclusive `flock` on
//! `<database>.lock`. SQLite's own lock is not fair between processes: a process that finds it
//! taken sleeps and polls, so two processes committing back to back could keep a third out past
//! the 10 s busy timeout. A process waiting for the file lock is woken as soon as it is
//! released. Within a process, writers queue in order for the one write connection.
//! Transactions an application opens on its own connection (for [`check_and_bump`] or
//! [`checkpoint_in`]) do not take the turn; they wait on SQLite's lock as before.
//!
//! # Change notification
//!
//! [`LeaseStore::subscribe`](baton_core::LeaseStore::subscribe) binds a Unix datagram socket in
//! `<database>.notify/` (created with mode 0700, so only the owner's processes take part). After
//! a release or forced release commits, the releasing process sends the lease name to every
//! socket there without blocking and removes the socket files of processes that are gone.
//! Delivery is best effort; a waiter that misses one retries on its own schedule.
//!
//! [`JobStore::subscribe_due`](baton_core::JobStore::subscribe_due) works the same way in
//! `<database>.due/`: after a commit records executions for the workers (fires, run-now,
//! retries), every worker in every process is woken.
//!
//! [`ClusterStore::subscribe_pending`](baton_core::ClusterStore::subscribe_pending) works the
//! same way in `<database>.pending/`: after a commit creates a batch or moves partitions off a
//! departed node, every node's claim loop in every process is woken.
//!
//! # Limits
//!
//! The file must live on a local filesystem: WAL mode needs shared memory and does not work over
//! a network filesystem. In-memory databases are refused, since other processes could not see
//! them.

mod actions;
mod backend;
mod checkpoint;
mod cluster;
mod error;
pub mod fence;
mod history;
mod jobs;
mod json;
mod lease;
mod migrate;
mod notify;
mod probe;
mod row;
mod turn;
mod tx;
mod url;

pub use actions::SqliteActionStore;
pub use backend::SqliteBackend;
pub use checkpoint::checkpoint_in;
pub use cluster::SqliteClusterStore;
pub use fence::{FenceError, check_and_bump};
pub use jobs::SqliteJobStore;
pub use lease::SqliteLeaseStore;
pub use probe::write_lock_free;
