//! The in-memory backend: the reference implementation of the backend traits.
//!
//! Everything lives in one process behind one mutex, so it coordinates tasks, not processes. It
//! exists to pin down the semantics every other backend must match and to drive simulations with
//! a [`ManualClock`](crate::time::ManualClock).

mod changes;
mod lease;

pub use lease::MemoryLeaseStore;
