//! Jobs and their executions: definitions, execution records, the `JobStore` trait, and the
//! pure rules the backends share.
//!
//! A fire is identified by `(job, fire key)` (I5), where the key is the scheduled instant in
//! UTC or a caller's idempotency key; each attempt of a fire is one execution record with a
//! fencing token of its own (I6). Statuses move one way:
//!
//! ```text
//! scheduled ──claim──▶ running ──complete──▶ succeeded | failed | timed_out | cancelled
//!     │                   └──no heartbeat──▶ abandoned
//!     └──claim settles──▶ skipped | missed
//! ```
//!
//! A failed, timed-out or abandoned attempt is followed by a new attempt (a new record, due
//! after the backoff) when the job's retry policy allows one.

mod audit;
mod definition;
mod execution;
mod listing;
pub mod row;
pub mod rules;
mod store;

pub use audit::{AuditReport, Finding, audit};
pub use definition::{Job, JobDefinition};
pub use execution::{Execution, ExecutionStatus, FireKey, MAX_OUTPUT_BYTES, Trigger, output_tail};
pub use listing::{all_executions, all_jobs, executions_for_audit};
pub use store::{
    ClaimParams, Claimed, CompleteParams, Completed, DueChanges, ExecutionListParams,
    FiresRecorded, HeartbeatOutcome, HeartbeatParams, JobListParams, JobStore, MissedFires,
    NewFire, PruneParams, RecordFiresParams, RescueParams, Rescued, TriggerOutcome, TriggerParams,
    job_not_registered,
};
