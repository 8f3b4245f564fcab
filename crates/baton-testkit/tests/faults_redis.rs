//! Redis's row of the fault matrix on throwaway servers, with holders as separate
//! processes taking their leases from Redis (directly or through the fault proxy) and writing
//! to a fenced ledger in a SQLite file beside it, a master's death under Sentinel included;
//! and a restart that keeps the dataset in an append-only file (the row's restart loses it).

use baton_testkit::fake_clock::FakeClock;
use baton_testkit::faults::{self, Setup};
use baton_testkit::matrix::Store;
use baton_testkit::servers::{RedisConfig, RedisServer};

baton_testkit::fault_row!(Store::Redis, replicated_lease_server);

#[tokio::test(flavor = "multi_thread")]
async fn redis_restart_with_an_append_only_file() {
    let server = RedisServer::start_with(RedisConfig { append_only: true, ..Default::default() });
    let dir = tempfile::tempdir().unwrap();
    let setup = Setup {
        binary: env!("CARGO_BIN_EXE_baton-test-holder").to_string(),
        url: server.url(),
        ledger: format!("sqlite://{}", dir.path().join("ledger.db").display()),
        lease: "ledger-writer".to_string(),
        ttl: faults::TTL,
        clock: FakeClock::REAL,
    };
    faults::store_restart_never_reissues_a_token(
        &setup,
        || server.process().kill(),
        || server.process().restart(),
    )
    .await;
}
