//! Fault tests on a throwaway MariaDB server, with holders as separate processes taking their
//! leases from MariaDB (directly or through the fault proxy) and writing to a fenced ledger in
//! MariaDB too (through `baton_mysql::check_and_bump`).

use std::sync::Arc;

use baton_testkit::faults::{self, STALL, Setup};
use baton_testkit::proxy::FaultProxy;
use baton_testkit::servers::MariadbServer;

fn setup(server: &MariadbServer) -> Setup {
    Setup {
        binary: env!("CARGO_BIN_EXE_baton-test-holder").to_string(),
        url: server.url(),
        ledger: server.url(),
        lease: "ledger-writer".to_string(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn kill9_of_the_holder() {
    let server = MariadbServer::start();
    faults::killed_holder_is_replaced_within_ttl_and_retry(&setup(&server)).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sigstop_past_the_ttl_then_sigcont() {
    let server = MariadbServer::start();
    faults::paused_holder_notices_its_loss_and_is_fenced(&setup(&server)).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn blackhole_between_the_holder_and_mariadb() {
    let server = MariadbServer::start();
    let proxy = FaultProxy::start(([127, 0, 0, 1], server.port()).into()).await.unwrap();
    let proxied = server
        .url()
        .replace(&format!(":{}/", server.port()), &format!(":{}/", proxy.addr().port()));
    assert_ne!(proxied, server.url());
    faults::cut_holder_steps_down_and_is_fenced(&setup(&server), &proxy, &proxied).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn mariadb_crash_and_restart() {
    let server = MariadbServer::start();
    faults::store_restart_never_reissues_a_token(
        &setup(&server),
        || server.process().kill(),
        || server.process().restart(),
    )
    .await;
}

/// The server is frozen (SIGSTOP) for [`STALL`], past the TTL, then thawed: what queued up runs.
#[tokio::test(flavor = "multi_thread")]
async fn a_server_frozen_past_the_ttl() {
    let server = Arc::new(MariadbServer::start());
    let mut thaw = None;
    faults::stalled_store_lets_no_stale_write_land(&setup(&server), || {
        server.process().pause();
        let server = server.clone();
        thaw = Some(std::thread::spawn(move || {
            std::thread::sleep(STALL);
            server.process().resume();
        }));
    })
    .await;
    thaw.expect("the thaw").join().unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn sigstop_from_outside_at_random_instants() {
    let server = MariadbServer::start();
    let (report, changes) =
        faults::random_pauses_let_no_stale_or_late_write_land(&setup(&server), 12).await;
    eprintln!("mariadb, 12 random pauses: {changes} leader changes, {report:?}");
}
