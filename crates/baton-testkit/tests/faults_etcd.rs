//! etcd's row of the fault matrix on throwaway members, with holders as separate processes
//! taking their leases from etcd (directly or through the fault proxy) and writing to a fenced
//! ledger in a SQLite file beside it; and a cluster of three whose leader is killed.

use std::time::{Duration, Instant};

use baton_testkit::fake_clock::FakeClock;
use baton_testkit::faults::{self, Setup};
use baton_testkit::leader_faults::{self, LeaderFault};
use baton_testkit::matrix::Store;
use baton_testkit::servers::EtcdCluster;
use tempfile::TempDir;

fn setup(url: String, dir: &TempDir) -> Setup {
    Setup {
        binary: env!("CARGO_BIN_EXE_baton-test-holder").to_string(),
        url,
        ledger: format!("sqlite://{}", dir.path().join("ledger.db").display()),
        lease: "ledger-writer".to_string(),
        ttl: faults::TTL,
        clock: FakeClock::REAL,
    }
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

baton_testkit::fault_row!(Store::Etcd, lease_server);
