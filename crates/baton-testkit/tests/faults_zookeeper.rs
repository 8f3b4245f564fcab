//! ZooKeeper's row of the fault matrix on throwaway servers, with holders as separate
//! processes taking their leases from ZooKeeper (directly or through the fault proxy) and
//! writing to a fenced ledger in a SQLite file beside it, its leader member killed among three
//! included; and beyond the row, an ensemble's leader killed together with the holder, and
//! under a first acquisition.

use std::time::Instant;

use baton_core::{HistoryParams, LeaseName, LeaseStore};
use baton_testkit::conformance::unique_name;
use baton_testkit::fake_clock::FakeClock;
use baton_testkit::faults::{self, PATIENCE, Setup};
use baton_testkit::matrix::{Members, Store};
use baton_zookeeper::ZkLeaseStore;
use tempfile::TempDir;

/// Holders of a lease of their own on the store at `url`.
fn setup(url: &str, dir: &TempDir) -> Setup {
    Setup {
        binary: env!("CARGO_BIN_EXE_baton-test-holder").to_string(),
        url: url.to_string(),
        ledger: format!("sqlite://{}", dir.path().join("ledger.db").display()),
        lease: unique_name("ledger-writer").to_string(),
        ttl: faults::TTL,
        clock: FakeClock::REAL,
    }
}

/// The tokens of every leader change of `lease`, which must strictly rise: none issued twice.
async fn assert_tokens_rise(url: &str, lease: &str) {
    let store = ZkLeaseStore::connect(url).await.expect("connect");
    let name = LeaseName::new(lease).unwrap();
    let params = HistoryParams { lease: Some(name), limit: 1000, ..Default::default() };
    let tokens: Vec<_> =
        store.history(params).await.unwrap().items.iter().map(|change| change.token).collect();
    assert!(tokens.windows(2).all(|w| w[0] < w[1]), "tokens must strictly rise: {tokens:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn ensemble_leader_and_holder_killed_while_the_lease_is_held() {
    let ensemble = Members::start(Store::Zookeeper).expect("a ZooKeeper ensemble");
    let dir = tempfile::tempdir().unwrap();
    let setup = setup(&ensemble.url(), &dir);
    let mut a = setup.holder("a").await;
    let (first, _) = a.expect("ACQUIRED", PATIENCE).await;
    a.expect("WROTE", PATIENCE).await;
    let mut b = setup.holder("b").await;

    let killed = Instant::now();
    a.kill9().await;
    let election = ensemble.kill_leader();
    let (next, _) = b.expect("ACQUIRED", PATIENCE).await;
    let failover = killed.elapsed();
    eprintln!("zookeeper ensemble: election {election:?}, new holder after {failover:?}");
    let bound = setup.takeover_bound() + election;
    assert!(failover <= bound, "failover took {failover:?}, more than {bound:?}");
    assert!(next.token() > first.token(), "tokens must rise: {first:?} then {next:?}");
    b.expect("WROTE", PATIENCE).await;
    setup.check_ledger().await;
    assert_tokens_rise(&ensemble.url(), &setup.lease).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn ensemble_leader_killed_while_the_lease_is_being_acquired() {
    let ensemble = Members::start(Store::Zookeeper).expect("a ZooKeeper ensemble");
    let dir = tempfile::tempdir().unwrap();
    let setup = setup(&ensemble.url(), &dir);
    let started = Instant::now();
    // The holder asks for the lease as soon as it is connected: the leader dies under its
    // first acquisition.
    let mut a = setup.holder("a").await;
    let election = ensemble.kill_leader();
    let mut b = setup.holder("b").await;
    let first = tokio::select! {
        (event, _) = a.expect("ACQUIRED", PATIENCE) => event,
        (event, _) = b.expect("ACQUIRED", PATIENCE) => event,
    };
    eprintln!("zookeeper ensemble: election {election:?}, first grant {:?}", first.token());
    let bound = setup.takeover_bound() + election;
    assert!(first.at.duration_since(started) <= bound, "no grant within {bound:?}");
    setup.check_ledger().await;
    assert_tokens_rise(&ensemble.url(), &setup.lease).await;
}

baton_testkit::fault_row!(Store::Zookeeper, replicated_lease_server);
