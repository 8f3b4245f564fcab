//! The fault matrix: every store under every fault of each workload (lease holders writing to
//! a fenced ledger, scheduler nodes, cluster nodes running a partitioned batch, an operator's
//! calls during each of them, each node a separate process), from one list of stores
//! ([`Store`]) and one list of faults ([`Fault`], each striking one [`Workload`]).
//!
//! A store's fault tests instantiate its row with [`fault_row!`](crate::fault_row), one test
//! per fault that applies; `baton-fault-matrix` runs the whole matrix, round after round, and
//! prints it as a table ([`markdown`], [`json`]). Both run the same cells ([`run_cell`]).

mod cell;
mod fault;
mod members;
mod store;
mod table;

pub use cell::{Cell, Verdict, run_cell};
pub use fault::{Fault, Workload};
pub use members::Members;
pub use store::{Binaries, Store, StoreUnderTest};
pub use table::{json, markdown};

/// Instantiates a store's row of the matrix: one `#[tokio::test]` per cell the store has, each
/// running its fault on a throwaway instance of the store. The cells follow from what the store
/// is, named after the invocation's second word:
///
/// - `embedded` (an SQLite file): the faults of the node processes, on every workload;
/// - `lease_emulation` (an emulated server inside the test process): those, and the faults
///   between the nodes and the store (cut, lost answers, restart, slowness, clocks);
/// - `lease_server` (a server of its own holding the leases): those, and a frozen server;
/// - `state_server` (a server holding leases and state): those, and a cut under the batch;
/// - `replicated_lease_server` (a lease server the tests also run as a replicated deployment):
///   those of `lease_server`, and its leader member killed.
///
/// Used in the testkit's own tests, where its node binaries are built; a cell that cannot
/// happen to the store ([`Fault::applies_to`]) fails its test.
#[macro_export]
macro_rules! fault_row {
    ($store:expr, embedded) => {
        $crate::fault_row!(@processes $store);
    };
    ($store:expr, lease_emulation) => {
        $crate::fault_row!(@processes $store);
        $crate::fault_row!(@network $store);
    };
    ($store:expr, lease_server) => {
        $crate::fault_row!($store, lease_emulation);
        $crate::fault_row!(@cells $store; store_frozen_past_the_ttl => Stall);
    };
    ($store:expr, replicated_lease_server) => {
        $crate::fault_row!($store, lease_server);
        $crate::fault_row!(@cells $store;
            leader_member_killed_while_a_lease_is_held => MemberFailure);
    };
    ($store:expr, state_server) => {
        $crate::fault_row!($store, lease_server);
        $crate::fault_row!(@cells $store;
            blackhole_between_a_worker_and_the_store => PartitionsCut);
    };
    (@processes $store:expr) => {
        $crate::fault_row!(@cells $store;
            kill9_of_the_holder => Kill9,
            sigstop_past_the_ttl_then_sigcont => PausePastTtl,
            sigstop_from_outside_at_random_instants => RandomPauses,
            kill9_of_the_scheduler_leader => SchedulerKill9,
            sigstop_of_the_scheduler_leader_past_its_ttl => SchedulerPause,
            rolling_restart_of_the_scheduler_nodes => SchedulerChurn,
            kill9_of_a_worker_holding_partitions => PartitionsKill9,
            sigstop_of_a_worker_inside_a_commit => PartitionsPause,
            a_worker_joins_and_another_leaves_mid_batch => PartitionsChurn,
            force_release_while_the_holder_writes => LeaseAdmin,
            pause_run_now_force_release_and_step_down => SchedulerAdmin,
            leader_changes_during_a_batch => BatchAdmin,
        );
    };
    (@network $store:expr) => {
        $crate::fault_row!(@cells $store;
            blackhole_between_the_holder_and_the_store => Cut,
            answers_lost_between_the_holder_and_the_store => AnswersLost,
            store_crash_and_restart => Restart,
            store_slow_for_twice_the_ttl => Slow,
            wall_clocks_ten_minutes_apart => SkewedClocks,
            clocks_at_0_8_then_a_blackhole => SlowClocks,
        );
    };
    (@cells $store:expr; $($case:ident => $fault:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread")]
            async fn $case() {
                let (store, fault) = ($store, $crate::matrix::Fault::$fault);
                let binaries = $crate::matrix::Binaries {
                    holder: env!("CARGO_BIN_EXE_baton-test-holder").to_string(),
                    scheduler_node: env!("CARGO_BIN_EXE_baton-test-node").to_string(),
                    cluster_node: env!("CARGO_BIN_EXE_baton-cluster-node").to_string(),
                };
                let cell = $crate::matrix::run_cell(store, fault, &binaries).await;
                match &cell.verdict {
                    $crate::matrix::Verdict::Passed(figures) => {
                        eprintln!("{} under {}: {figures}", store.name(), fault.name());
                        eprintln!("{}", cell.summary);
                    }
                    verdict => panic!(
                        "{} under {}: {}: {}",
                        store.name(),
                        fault.name(),
                        verdict.label(),
                        cell.excerpt.as_deref().unwrap_or(verdict.detail())
                    ),
                }
            }
        )*
    };
}
