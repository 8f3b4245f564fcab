//! Scheduler fault tests beside the matrix's (the leader killed or paused is in the store's
//! row, `faults_postgres.rs`), on a throwaway PostgreSQL server with three nodes as separate
//! processes.

use baton_testkit::node_args::NodeSetup;
use baton_testkit::scheduler_faults;
use baton_testkit::scheduler_overlap::{self, Held};
use baton_testkit::servers::PostgresServer;

fn setup(server: &PostgresServer) -> NodeSetup {
    NodeSetup::on(env!("CARGO_BIN_EXE_baton-test-node"), server.url())
}

#[tokio::test(flavor = "multi_thread")]
async fn kill9_of_a_worker_mid_execution() {
    let server = PostgresServer::start();
    let measured =
        scheduler_faults::killed_worker_execution_is_abandoned_and_retried(&setup(&server)).await;
    eprintln!("postgres, kill -9 of a worker mid-execution: {measured}");
}

#[tokio::test(flavor = "multi_thread")]
async fn kill9_of_the_leader_while_a_forbid_execution_completes_elsewhere() {
    let server = PostgresServer::start();
    let measured = scheduler_overlap::owed_fires_of_a_forbid_job_run_after_the_leader_dies(
        &setup(&server),
        Held::Elsewhere,
    )
    .await;
    eprintln!("postgres, kill -9 of the leader while a forbid execution completes: {measured}");
}

#[tokio::test(flavor = "multi_thread")]
async fn kill9_of_the_leader_running_a_forbid_execution() {
    let server = PostgresServer::start();
    let measured = scheduler_overlap::owed_fires_of_a_forbid_job_run_after_the_leader_dies(
        &setup(&server),
        Held::OnTheLeader,
    )
    .await;
    eprintln!("postgres, kill -9 of the leader running a forbid execution: {measured}");
}
