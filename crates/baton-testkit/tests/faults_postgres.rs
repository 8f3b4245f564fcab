//! Fault tests on a throwaway PostgreSQL server with holders as separate processes.

use baton_testkit::faults::{self, Setup};
use baton_testkit::proxy::FaultProxy;
use baton_testkit::servers::PostgresServer;

fn setup(server: &PostgresServer) -> Setup {
    Setup {
        binary: env!("CARGO_BIN_EXE_baton-test-holder").to_string(),
        url: server.url(),
        ledger: server.url(),
        lease: "ledger-writer".to_string(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn kill9_of_the_holder() {
    let server = PostgresServer::start();
    faults::killed_holder_is_replaced_within_ttl_and_retry(&setup(&server)).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sigstop_past_the_ttl_then_sigcont() {
    let server = PostgresServer::start();
    faults::paused_holder_notices_its_loss_and_is_fenced(&setup(&server)).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn blackhole_between_the_holder_and_postgres() {
    let server = PostgresServer::start();
    let proxy = FaultProxy::start(([127, 0, 0, 1], server.port()).into()).await.unwrap();
    let proxied = server
        .url()
        .replace(&format!(":{}/", server.port()), &format!(":{}/", proxy.addr().port()));
    assert_ne!(proxied, server.url());
    faults::cut_holder_steps_down_and_is_fenced(&setup(&server), &proxy, &proxied).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_crash_and_restart() {
    let server = PostgresServer::start();
    faults::store_restart_never_reissues_a_token(
        &setup(&server),
        || server.kill(),
        || server.restart(),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sigstop_from_outside_at_random_instants() {
    let server = PostgresServer::start();
    let (report, changes) =
        faults::random_pauses_let_no_stale_or_late_write_land(&setup(&server), 12).await;
    eprintln!("postgres, 12 random pauses: {changes} leader changes, {report:?}");
}
