//! Fault tests on SQLite with holders as separate processes sharing one file.

use baton_testkit::faults::{self, Setup};

fn setup(dir: &tempfile::TempDir) -> Setup {
    Setup {
        binary: env!("CARGO_BIN_EXE_baton-test-holder").to_string(),
        url: format!("sqlite://{}", dir.path().join("baton.db").display()),
        ledger: format!("sqlite://{}", dir.path().join("baton.db").display()),
        lease: "ledger-writer".to_string(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn kill9_of_the_holder() {
    let dir = tempfile::tempdir().unwrap();
    faults::killed_holder_is_replaced_within_ttl_and_retry(&setup(&dir)).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sigstop_past_the_ttl_then_sigcont() {
    let dir = tempfile::tempdir().unwrap();
    faults::paused_holder_notices_its_loss_and_is_fenced(&setup(&dir)).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sigstop_from_outside_at_random_instants() {
    let dir = tempfile::tempdir().unwrap();
    let (report, changes) =
        faults::random_pauses_let_no_stale_or_late_write_land(&setup(&dir), 12).await;
    eprintln!("sqlite, 12 random pauses: {changes} leader changes, {report:?}");
}
