//! Test support for baton: conformance suites every backend must pass, throwaway real servers,
//! a TCP fault proxy, fenced ledgers with their checkers, and fault scenarios with lease
//! holders and scheduler nodes as separate processes.

pub mod cluster_admin;
pub mod cluster_faults;
pub mod cluster_node;
pub mod conformance;
pub mod databases;
pub mod evented;
pub mod fake_clock;
pub mod faults;
pub mod gate;
pub mod history;
pub mod holder;
pub mod item_ledger;
pub mod leader_faults;
pub mod ledger;
pub mod matrix;
pub mod node;
pub mod node_args;
pub mod proxy;
pub mod scheduler_admin;
pub mod scheduler_faults;
pub mod scheduler_overlap;
pub mod seed;
pub mod servers;
pub mod terms;
