//! Fault tests for partitioned batches on a throwaway PostgreSQL server, with three cluster
//! nodes as separate processes.

use baton_testkit::cluster_faults::{self, Setup};
use baton_testkit::proxy::FaultProxy;
use baton_testkit::servers::PostgresServer;

fn setup(server: &PostgresServer) -> Setup {
    Setup { binary: env!("CARGO_BIN_EXE_baton-cluster-node").to_string(), url: server.url() }
}

#[tokio::test(flavor = "multi_thread")]
async fn kill9_of_a_worker_holding_partitions() {
    let server = PostgresServer::start();
    let measured = cluster_faults::killed_worker_partitions_resume_elsewhere(&setup(&server)).await;
    eprintln!("postgres, kill -9 of a worker: {measured}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sigstop_of_a_worker_past_the_unreachable_threshold() {
    let server = PostgresServer::start();
    let measured =
        cluster_faults::paused_worker_is_fenced_and_registers_again(&setup(&server)).await;
    eprintln!("postgres, SIGSTOP of a worker: {measured}");
}

#[tokio::test(flavor = "multi_thread")]
async fn blackhole_between_a_worker_and_postgres() {
    let server = PostgresServer::start();
    let proxy = FaultProxy::start(([127, 0, 0, 1], server.port()).into()).await.unwrap();
    let proxied = server
        .url()
        .replace(&format!(":{}/", server.port()), &format!(":{}/", proxy.addr().port()));
    assert_ne!(proxied, server.url());
    let measured = cluster_faults::cut_worker_partitions_resume_and_it_registers_again(
        &setup(&server),
        &proxy,
        &proxied,
    )
    .await;
    eprintln!("postgres, blackhole between a worker and the server: {measured}");
}
