//! The job-store conformance suite (invariants I5, I6 and I8).
//!
//! Every case holds on a real store shared with the other cases running in parallel, on the
//! store's real clock: each uses job names of its own, claims only its own jobs' executions,
//! never assumes a table is empty, and waits for store time to pass by polling the store's
//! clock, never by sleeping and then asserting. Cases hold a running execution for well under
//! [`RESCUE_STALE`], since the rescue case abandons every execution of the store whose
//! heartbeat is older than that.

mod claims;
mod finishing;
mod history;
mod overlap;
mod racing;
mod records;
mod retention;
mod support;

use std::sync::Arc;

use async_trait::async_trait;
use baton_core::JobStore;

pub use claims::*;
pub use finishing::*;
pub use history::*;
pub use overlap::*;
pub use racing::*;
pub use records::*;
pub use retention::*;
pub use support::{RESCUE_STALE, unique_job};

/// How a suite reaches one backend.
#[async_trait]
pub trait JobHarness: Send + Sync {
    /// A handle on the store under test; every handle of one harness sees the same records,
    /// as separate processes on one store would.
    async fn store(&self) -> Arc<dyn JobStore>;
}

/// Instantiates the job-store conformance suite: one `#[tokio::test]` per case, each calling
/// `$harness` (an async expression yielding something that implements [`JobHarness`]).
#[macro_export]
macro_rules! job_conformance {
    ($harness:expr) => {
        $crate::job_conformance!(@cases $harness;
            a_registered_job_reads_back,
            record_fires_is_idempotent_and_counts_only_inserts,
            racing_leaders_record_each_fire_once,
            an_instant_is_never_both_run_and_missed,
            racing_workers_claim_each_execution_once,
            claims_ahead_only_what_cannot_be_refused,
            claim_takes_its_jobs_due_executions_oldest_due_first,
            a_paused_job_skips_its_fires,
            skip_through_skips_exactly_the_fires_up_to_it,
            overlap_forbid_skips_a_fire_that_comes_due_while_one_runs,
            overlap_forbid_runs_owed_fires_one_after_another,
            overlap_allow_runs_both,
            overlap_replace_cancels_the_running_one_first,
            overlap_buffer_one_keeps_one_waiting,
            a_fire_past_its_starting_deadline_is_missed,
            complete_with_a_stale_token_changes_nothing,
            a_failed_attempt_is_retried_after_its_backoff,
            a_succeeded_execution_never_runs_again,
            trigger_answers_existing_or_records_a_new_attempt,
            trigger_with_claim_for_runs_at_once,
            heartbeat_reports_lost_executions,
            request_cancel_reaches_running_and_scheduled_executions,
            rescue_abandons_only_stale_executions,
            a_missed_run_is_one_record,
            job_last_fires_reports_where_each_job_stopped,
            execution_list_pages_and_filters,
            job_list_pages_by_id,
            job_list_answers_what_changed_since,
            prune_keeps_by_retention_and_never_the_last_record,
            prune_deletes_by_age,
            prune_keeps_how_far_it_deleted_for_the_audit,
            due_executions_wake_workers,
            bad_input_changes_nothing,
        );
    };
    (@cases $harness:expr; $($case:ident,)*) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                let harness = $harness;
                $crate::conformance::jobs::$case(&harness).await;
            }
        )*
    };
}

/// Instantiates the racing-claimers cases ([`race_claimers`]) for a store whose writers run
/// concurrently inside it (PostgreSQL, MySQL), where the overlap decisions must stay exclusive
/// under the server's own concurrency control. A SQLite database takes one writer at a time,
/// so racing claimers there only queue for its write lock.
#[macro_export]
macro_rules! job_race_conformance {
    ($harness:expr) => {
        $crate::job_conformance!(@cases $harness;
            racing_claimers_keep_a_forbid_job_exclusive,
            racing_claimers_keep_a_buffer_one_job_exclusive,
            racing_claimers_keep_a_replace_job_exclusive,
        );
    };
}
