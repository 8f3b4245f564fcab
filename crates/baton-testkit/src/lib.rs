//! Test support for baton: conformance suites every backend must pass, throwaway real servers,
//! a TCP fault proxy, and a fenced ledger with its checker.

pub mod conformance;
pub mod faults;
pub mod holder;
pub mod ledger;
pub mod proxy;
pub mod servers;
