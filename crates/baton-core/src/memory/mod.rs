//! The in-memory backend: the reference implementation of the backend traits.
//!
//! Everything lives in one process behind one mutex, so it coordinates tasks, not processes. It
//! exists to pin down the semantics every other backend must match and to drive simulations with
//! a [`ManualClock`](crate::time::ManualClock).

mod actions;
mod changes;
mod cluster;
mod cluster_batches;
mod cluster_moves;
mod cluster_nodes;
mod cluster_partitions;
mod cluster_state;
mod jobs;
mod jobs_fires;
mod jobs_read;
mod jobs_run;
mod jobs_state;
mod lease;
mod wakeups;

pub use actions::MemoryActionStore;
pub use cluster::MemoryClusterStore;
pub use jobs::MemoryJobStore;
pub use lease::MemoryLeaseStore;
