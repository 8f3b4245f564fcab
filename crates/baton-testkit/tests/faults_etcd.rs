//! etcd's row of the fault matrix on throwaway members, with holders as separate processes
//! taking their leases from etcd (directly or through the fault proxy) and writing to a fenced
//! ledger in a SQLite file beside it, its leader member killed among three included; and
//! beyond the row, the leader member killed under an acquisition.

use baton_testkit::fake_clock::FakeClock;
use baton_testkit::faults::{self, Setup};
use baton_testkit::leader_faults;
use baton_testkit::matrix::{Members, Store};

#[tokio::test(flavor = "multi_thread")]
async fn cluster_leader_killed_while_a_lease_is_acquired() {
    let members = Members::start(Store::Etcd).expect("three etcd members");
    let dir = tempfile::tempdir().unwrap();
    let setup = Setup {
        binary: env!("CARGO_BIN_EXE_baton-test-holder").to_string(),
        url: members.url(),
        ledger: format!("sqlite://{}", dir.path().join("ledger.db").display()),
        lease: "ledger-writer".to_string(),
        ttl: faults::TTL,
        clock: FakeClock::REAL,
    };
    let fault =
        leader_faults::leader_killed_while_a_lease_is_acquired(&setup, || members.kill_leader())
            .await;
    eprintln!(
        "etcd, three members, leader killed while a lease is being acquired: new leader elected \
         in {:?}, the lease taken over {:?} after the kill",
        fault.election, fault.restored
    );
}

baton_testkit::fault_row!(Store::Etcd, replicated_lease_server);
