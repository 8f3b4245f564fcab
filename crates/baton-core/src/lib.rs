//! The pure core of baton.
//!
//! This crate holds the vocabulary every other crate speaks: fencing tokens, lease records, the
//! pure lease transitions (time is passed in, nothing here reads a clock or does I/O), the backend
//! traits, a portable error type, and an in-memory backend that is the reference implementation
//! of those traits.

pub mod error;
pub mod fence;
pub mod lease;
pub mod memory;
pub mod page;
pub mod time;

pub use error::{Error, ErrorKind, Result};
pub use lease::{
    AcquireOutcome, AcquireParams, Capabilities, ChangeReason, FencingToken, ForceReleaseParams,
    HistoryParams, HolderId, LeaderChange, Lease, LeaseChanges, LeaseName, LeaseStore, ReleaseKind,
    ReleaseParams, RenewAllOutcome, RenewAllParams, RenewParams,
};
pub use page::{Cursor, Page};
pub use time::StoreTime;
