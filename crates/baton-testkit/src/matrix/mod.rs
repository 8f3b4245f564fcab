//! The lease fault matrix: every store under every fault of the lease workload (holders as
//! separate processes campaigning for one lease and writing to a fenced ledger), from one list
//! of stores ([`Store`]) and one list of faults ([`Fault`]).
//!
//! A store's fault tests instantiate its row with [`fault_row!`](crate::fault_row), one test
//! per fault that applies; `baton-fault-matrix` runs the whole matrix, round after round, and
//! prints it as a table ([`markdown`], [`json`]). Both run the same cells ([`run_cell`]).

mod cell;
mod fault;
mod store;
mod table;

pub use cell::{Cell, Verdict, run_cell};
pub use fault::Fault;
pub use store::{Store, StoreUnderTest};
pub use table::{json, markdown};

/// Instantiates a store's row of the matrix: one `#[tokio::test]` per `test_name => Fault`
/// listed, each running the fault on a throwaway instance of the store. Used in the testkit's
/// own tests, where the holder binary is built; a fault listed that cannot happen to the store
/// fails its test.
#[macro_export]
macro_rules! fault_row {
    ($store:expr; $($case:ident => $fault:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread")]
            async fn $case() {
                let (store, fault) = ($store, $crate::matrix::Fault::$fault);
                let holder = env!("CARGO_BIN_EXE_baton-test-holder");
                let cell = $crate::matrix::run_cell(store, fault, holder).await;
                match &cell.verdict {
                    $crate::matrix::Verdict::Passed(figures) => {
                        eprintln!("{} under {}: {figures}", store.name(), fault.name());
                    }
                    verdict => panic!("{} under {}: {verdict:?}", store.name(), fault.name()),
                }
            }
        )*
    };
}
