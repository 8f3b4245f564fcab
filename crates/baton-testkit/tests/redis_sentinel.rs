//! Leases on a Redis Sentinel deployment of throwaway servers: the lease conformance suite
//! through the sentinels, and a failover to a replica that never received the last
//! acquisition, after which tokens still rise and the store follows the new master.

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use baton_core::{
    AcquireOutcome, AcquireParams, ErrorKind, HistoryParams, HolderId, Lease, LeaseName,
    LeaseStore, ReleaseParams, RenewParams,
};
use baton_redis::RedisLeaseStore;
use baton_testkit::conformance::lease::LeaseHarness;
use baton_testkit::conformance::{unique_holder, unique_name};
use baton_testkit::proxy::{FaultProxy, Mode};
use baton_testkit::servers::{RedisServer, SentinelConfig, SentinelTopology};
use tokio::sync::OnceCell;

const TTL: Duration = Duration::from_secs(30);
/// How long the store may take to reach the new master once the sentinels name it.
const PATIENCE: Duration = Duration::from_secs(30);

/// A master, a replica and one sentinel per test (one sentinel is enough when nothing fails
/// over, and it is ready at once); the store is opened by URL through the facade, as the
/// command line does, on first use.
struct Sentinel {
    store: OnceCell<Arc<dyn LeaseStore>>,
    topology: SentinelTopology,
}

impl Sentinel {
    fn start() -> Self {
        let config = SentinelConfig { sentinels: 1, ..Default::default() };
        Sentinel { store: OnceCell::new(), topology: SentinelTopology::start(config) }
    }
}

#[async_trait]
impl LeaseHarness for Sentinel {
    async fn store(&self) -> Arc<dyn LeaseStore> {
        let url = self.topology.url();
        let open = || async { baton::connect_leases(&url).await.expect("connect") };
        self.store.get_or_init(open).await.clone()
    }

    async fn delete_record(&self, name: &LeaseName) {
        let mut master = raw(self.topology.initial_master()).await;
        let deleted: i64 = redis::cmd("DEL")
            .arg(format!("baton:{{lease:{name}}}:record"))
            .query_async(&mut master)
            .await
            .expect("delete the lease record");
        assert_eq!(deleted, 1, "the record of {name} is where the layout says");
    }
}

baton_testkit::lease_conformance!(Sentinel::start());

/// A plain connection to one server.
async fn raw(server: &RedisServer) -> redis::aio::MultiplexedConnection {
    let client = redis::Client::open(server.url()).expect("client");
    client.get_multiplexed_async_connection().await.expect("raw connection")
}

/// Acquires `name` for `holder`; panics unless it is granted.
async fn acquire(store: &RedisLeaseStore, name: &LeaseName, holder: &HolderId) -> Lease {
    let params = AcquireParams { name: name.clone(), holder: holder.clone(), ttl: TTL };
    match store.acquire(params).await.expect("acquire") {
        AcquireOutcome::Acquired { lease, .. } => lease,
        other => panic!("expected lease {name} to be granted, got {other:?}"),
    }
}

/// Waits until the master has every write so far on its replica. `WAIT` waits for the writes
/// of its own connection only (a connection that wrote nothing returns at once), so it follows
/// a write of a marker key on the same connection, which comes after every earlier write.
async fn replicated(master: &RedisServer) {
    let mut connection = raw(master).await;
    let _: i64 = redis::cmd("INCR")
        .arg("baton-test:replicated")
        .query_async(&mut connection)
        .await
        .expect("write the marker");
    let acknowledged: i64 = redis::cmd("WAIT")
        .arg(1)
        .arg(PATIENCE.as_millis() as u64)
        .query_async(&mut connection)
        .await
        .expect("WAIT");
    assert_eq!(acknowledged, 1, "the replica acknowledged every write");
}

/// The holder and token of lease `name` as the server at hand keeps them.
async fn record_on(server: &RedisServer, name: &LeaseName) -> (Option<String>, Option<String>) {
    redis::cmd("HMGET")
        .arg(format!("baton:{{lease:{name}}}:record"))
        .arg("holder")
        .arg("token")
        .query_async(&mut raw(server).await)
        .await
        .expect("read the record")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failover_to_a_replica_that_missed_the_last_acquisition_still_raises_the_token() {
    // The replica replicates through a proxy, so that replication can be held back.
    let master = RedisServer::start();
    let proxy = FaultProxy::start(([127, 0, 0, 1], master.port()).into()).await.unwrap();
    let config =
        SentinelConfig { replicate_through: Some(proxy.addr().port()), ..Default::default() };
    let topology = tokio::task::spawn_blocking(move || SentinelTopology::around(master, config))
        .await
        .unwrap();
    let (old, new) = (topology.initial_master(), topology.initial_replica());
    assert_eq!(baton::url_kind(&topology.url()).unwrap(), baton::UrlKind::LeasesOnly);
    let store = RedisLeaseStore::connect(&topology.url()).await.unwrap();
    let name = unique_name("failover");
    let (a, b, c) = (unique_holder("a"), unique_holder("b"), unique_holder("c"));

    // A holds the lease and releases it; the replica has both.
    let first = acquire(&store, &name, &a).await;
    let params = ReleaseParams { name: name.clone(), holder: a, token: first.token };
    assert!(store.release(params).await.unwrap());
    replicated(old).await;

    // B acquires while replication is held back: only the master knows.
    proxy.set_mode(Mode::Blackhole);
    let lost = acquire(&store, &name, &b).await;
    assert!(lost.token > first.token);
    let (holder, token) = record_on(new, &name).await;
    assert_eq!(holder.filter(|holder| !holder.is_empty()), None, "the replica saw the release");
    assert_eq!(token, Some(first.token.to_string()), "but not B's acquisition");

    // The master dies with B's acquisition; the sentinels promote the replica.
    old.process().kill();
    let promoted = new.port();
    let waiting = tokio::task::spawn_blocking(move || {
        topology.wait_for_master(promoted);
        topology
    });
    let topology = waiting.await.unwrap();
    let new = topology.initial_replica();

    // The store follows: a call on the connection to the dead master has an unknown outcome
    // (nothing sends it again); a read is safe to repeat until the new master answers.
    let deadline = Instant::now() + PATIENCE;
    while let Err(err) = store.now().await {
        assert!(err.kind().outcome_unknown(), "{err}");
        assert!(Instant::now() < deadline, "the store did not reach the new master: {err}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // The lease looks free on the new master, while B still believes it holds it until its
    // deadline; C's token is greater than every token issued before, B's included.
    let taken = acquire(&store, &name, &c).await;
    assert!(taken.token > lost.token, "{} issued after {}", taken.token, lost.token);
    assert!(taken.token > first.token);
    let on_new_master = record_on(new, &name).await;
    assert_eq!(on_new_master, (Some(c.to_string()), Some(taken.token.to_string())));

    // B can neither renew nor release, and the record says who holds the lease now.
    let renewal = RenewParams { name: name.clone(), holder: b.clone(), token: lost.token };
    let err = store.renew(renewal).await.expect_err("B's acquisition was lost");
    assert_eq!(err.kind(), ErrorKind::LeaseLost, "{err}");
    let release = ReleaseParams { name: name.clone(), holder: b, token: lost.token };
    assert!(!store.release(release).await.unwrap());
    assert_eq!(store.get(&name).await.unwrap().and_then(|lease| lease.holder), Some(c));

    // The history shows the gap that asynchronous replication left.
    let history =
        store.history(HistoryParams { lease: Some(name), ..Default::default() }).await.unwrap();
    let tokens: Vec<_> = history.items.iter().map(|change| change.token).collect();
    assert_eq!(tokens, [first.token, taken.token], "B's grant was lost with the old master");
}
