//! Fault tests for partitioned batches on SQLite, with three cluster nodes as separate
//! processes sharing one file.

use baton_testkit::cluster_faults::{self, Setup};

fn setup(dir: &tempfile::TempDir) -> Setup {
    Setup {
        binary: env!("CARGO_BIN_EXE_baton-cluster-node").to_string(),
        url: format!("sqlite://{}", dir.path().join("baton.db").display()),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn kill9_of_a_worker_holding_partitions() {
    let dir = tempfile::tempdir().unwrap();
    let measured = cluster_faults::killed_worker_partitions_resume_elsewhere(&setup(&dir)).await;
    eprintln!("sqlite, kill -9 of a worker: {measured}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sigstop_of_a_worker_past_the_unreachable_threshold() {
    let dir = tempfile::tempdir().unwrap();
    let measured = cluster_faults::paused_worker_is_fenced_and_registers_again(&setup(&dir)).await;
    eprintln!("sqlite, SIGSTOP of a worker: {measured}");
}
