//! Fault tests on throwaway etcd members, with holders as separate processes taking their
//! leases from etcd (directly or through the fault proxy) and writing to a fenced ledger in a
//! SQLite file beside it; and on a cluster of three whose leader is killed.

use std::time::{Duration, Instant};

use baton_testkit::faults::{self, Setup};
use baton_testkit::leader_faults::{self, LeaderFault};
use baton_testkit::proxy::FaultProxy;
use baton_testkit::servers::{EtcdCluster, EtcdServer};
use tempfile::TempDir;

fn setup(url: String, dir: &TempDir) -> Setup {
    Setup {
        binary: env!("CARGO_BIN_EXE_baton-test-holder").to_string(),
        url,
        ledger: format!("sqlite://{}", dir.path().join("ledger.db").display()),
        lease: "ledger-writer".to_string(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn kill9_of_the_holder() {
    let (server, dir) = (EtcdServer::start(), tempfile::tempdir().unwrap());
    let failover =
        faults::killed_holder_is_replaced_within_ttl_and_retry(&setup(server.url(), &dir)).await;
    eprintln!("etcd: a killed holder was replaced after {failover:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn blackhole_between_the_holder_and_etcd() {
    let (server, dir) = (EtcdServer::start(), tempfile::tempdir().unwrap());
    let proxy = FaultProxy::start(([127, 0, 0, 1], server.port()).into()).await.unwrap();
    let proxied = format!("etcd://127.0.0.1:{}", proxy.addr().port());
    faults::cut_holder_steps_down_and_is_fenced(&setup(server.url(), &dir), &proxy, &proxied).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sigstop_past_the_ttl_then_sigcont() {
    let (server, dir) = (EtcdServer::start(), tempfile::tempdir().unwrap());
    faults::paused_holder_notices_its_loss_and_is_fenced(&setup(server.url(), &dir)).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn etcd_restart() {
    let (server, dir) = (EtcdServer::start(), tempfile::tempdir().unwrap());
    faults::store_restart_never_reissues_a_token(
        &setup(server.url(), &dir),
        || server.process().kill(),
        || server.process().restart(),
    )
    .await;
}

/// Kills the cluster's leader; answers how long the two others took to elect a new one.
fn kill_leader(cluster: &EtcdCluster) -> Duration {
    cluster.leader().process().kill();
    let killed = Instant::now();
    cluster.leader();
    killed.elapsed()
}

fn report(what: &str, fault: LeaderFault) {
    eprintln!(
        "etcd, three members, leader killed {what}: new leader elected in {:?}, writes resumed \
         {:?} after the kill",
        fault.election, fault.restored
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn cluster_leader_killed_while_a_lease_is_held() {
    let (cluster, dir) = (EtcdCluster::start(), tempfile::tempdir().unwrap());
    let fault =
        leader_faults::leader_killed_while_a_lease_is_held(&setup(cluster.url(), &dir), || {
            kill_leader(&cluster)
        })
        .await;
    report("while a lease is held", fault);
}

#[tokio::test(flavor = "multi_thread")]
async fn cluster_leader_killed_while_a_lease_is_acquired() {
    let (cluster, dir) = (EtcdCluster::start(), tempfile::tempdir().unwrap());
    let fault =
        leader_faults::leader_killed_while_a_lease_is_acquired(&setup(cluster.url(), &dir), || {
            kill_leader(&cluster)
        })
        .await;
    report("while a lease is being acquired", fault);
}
