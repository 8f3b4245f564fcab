//! The pure core of baton.
//!
//! This crate holds the vocabulary every other crate speaks: fencing tokens, lease records, the
//! pure lease transitions (time is passed in, nothing here reads a clock or does I/O), schedules,
//! job policies and misfire decisions, the backend traits, a portable error type, and an
//! in-memory backend that is the reference implementation of those traits.

pub mod action;
pub mod claim;
pub mod cluster;
#[cfg(feature = "sqlx")]
pub mod connections;
pub mod echo;
pub mod error;
pub mod fence;
pub mod job;
pub mod layer;
pub mod lease;
pub mod memory;
mod migration;
mod name;
pub mod page;
pub mod schedule;
pub mod settings;
pub mod time;
pub mod tls;
pub mod url;

pub use action::ActionStore;
pub use cluster::{ClusterStore, NodeId};
pub use error::{Error, ErrorKind, Result};
pub use job::{Execution, ExecutionStatus, FireKey, Job, JobDefinition, JobStore, Trigger};
pub use lease::{
    AcquireOutcome, AcquireParams, Capabilities, ChangeReason, FencingToken, ForceReleaseParams,
    HistoryParams, HolderId, LeaderChange, Lease, LeaseChanges, LeaseName, LeaseStore, ReleaseKind,
    ReleaseParams, RenewAllOutcome, RenewAllParams, RenewParams, TtlRange,
};
pub use migration::Migration;
pub use page::{Cursor, Page};
pub use schedule::{
    CronSchedule, FirePlan, IntervalSchedule, JobName, JobPolicy, MisfirePolicy, MissedRange,
    OverlapPolicy, Retention, RetryPolicy, Schedule, ScheduleKind, plan_fires,
};
pub use time::StoreTime;
