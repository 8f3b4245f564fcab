//! The cluster-store conformance suite (invariants I7 and I8 for nodes, batches and
//! partitions).
//!
//! Each case calls the harness expression anew, so each runs on a store of its own: sweeps
//! and reassignments act on every node and partition of a store. Cases run on the store's
//! real clock with the short [`thresholds`] and wait for store time to pass by polling the
//! store's clock, never by sleeping and then asserting; exact boundaries are left to tests
//! with a manual clock.

mod batches;
mod claims;
mod failover;
mod moves;
mod nodes;
mod records;
mod support;
mod timing;

use std::sync::Arc;

use async_trait::async_trait;
use baton_core::ClusterStore;

pub use batches::*;
pub use claims::*;
pub use failover::*;
pub use moves::*;
pub use nodes::*;
pub use records::*;
pub use support::{thresholds, unique_node};
pub use timing::*;

/// How a suite reaches one backend.
#[async_trait]
pub trait ClusterHarness: Send + Sync {
    /// A handle on the store under test; every handle of one harness sees the same records,
    /// as separate processes on one store would.
    async fn store(&self) -> Arc<dyn ClusterStore>;
}

/// Instantiates the cluster-store conformance suite: one `#[tokio::test]` per case, each
/// calling `$harness` (an async expression yielding something that implements
/// [`ClusterHarness`]).
#[macro_export]
macro_rules! cluster_conformance {
    ($harness:expr) => {
        $crate::cluster_conformance!(@cases $harness;
            registration_issues_a_token_and_records_the_change,
            registering_again_fences_the_previous_incarnation,
            heartbeats_are_stamped_in_store_time,
            silent_nodes_go_unreachable_then_removed_on_the_store_clock,
            a_node_that_leaves_is_fenced_and_its_partitions_move_at_once,
            racing_claimers_claim_each_partition_once,
            claims_take_partitions_assigned_to_the_node_or_to_no_one,
            checkpoint_is_compare_and_set_on_the_token,
            a_checkpoint_racing_a_new_incarnation_is_kept_whole_or_refused,
            complete_and_fail_are_compare_and_set_on_the_token,
            reassignment_keeps_the_checkpoint_and_issues_a_greater_token,
            a_claimed_partition_that_cannot_move_fails_its_batch,
            a_batch_succeeds_once_every_partition_completed,
            a_batch_fails_listing_its_failed_partitions,
            nodes_and_changes_page_with_a_keyset_cursor,
            batches_and_partitions_page_with_a_keyset_cursor,
            bad_input_changes_nothing,
            a_sweep_answers_its_time_and_the_oldest_active_heartbeat,
            pending_partitions_wake_subscribers,
            moves_take_the_last_pending_partitions_under_new_tokens,
            moves_are_bounded_and_checked,
            racing_moves_and_claims_never_share_a_partition,
            failovers_are_recorded_as_moves,
        );
    };
    (@cases $harness:expr; $($case:ident,)*) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                let harness = $harness;
                $crate::conformance::cluster::$case(&harness).await;
            }
        )*
    };
}
