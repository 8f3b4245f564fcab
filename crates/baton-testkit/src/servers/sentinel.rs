//! A Redis Sentinel deployment of throwaway servers: a master, one replica of it and sentinels
//! watching it, each on a free loopback port in its own temporary directory.
//!
//! Sentinels are `redis-server --sentinel` (the `redis-sentinel` command is the same binary). A
//! sentinel's configuration file is its state (it rewrites the file as it learns replicas,
//! other sentinels and new masters), so each one gets its own file in its directory.

use std::collections::HashMap;
use std::process::Command;
use std::time::{Duration, Instant};

use redis::{FromRedisValue, Value};

use super::process::ServerProcess;
use super::redis::{RedisConfig, RedisServer, answers_ping, binary};
use super::spec::ServerSpec;

/// The master's name in the sentinels' configuration.
pub const MASTER_NAME: &str = "baton";

/// How long the sentinels may take to agree that the master is down after it stops answering.
const DOWN_AFTER: Duration = Duration::from_millis(1000);
/// How long the deployment may take to settle: replication linked, sentinels aware of each
/// other, a failover completed.
const SETTLE: Duration = Duration::from_secs(60);
/// How often a condition is polled while waiting for it.
const POLL: Duration = Duration::from_millis(25);

/// How a [`SentinelTopology`] is started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentinelConfig {
    /// How many sentinels watch the master; the quorum is a majority of them.
    pub sentinels: usize,
    /// The loopback port the replica replicates from: the master's unless given (a fault proxy
    /// in front of the master, to hold replication back).
    pub replicate_through: Option<u16>,
}

impl Default for SentinelConfig {
    fn default() -> Self {
        SentinelConfig { sentinels: 3, replicate_through: None }
    }
}

/// A master, its replica and sentinels, all throwaway. Dropping it kills every process and
/// removes their directories.
pub struct SentinelTopology {
    // Fields drop in order: the sentinels first, so that none fails over while the servers go.
    sentinels: Vec<ServerProcess>,
    replica: RedisServer,
    master: RedisServer,
}

impl SentinelTopology {
    /// Starts a master, then [`around`](Self::around) it.
    pub fn start(config: SentinelConfig) -> SentinelTopology {
        SentinelTopology::around(RedisServer::start(), config)
    }

    /// Starts a replica of `master` and sentinels watching it, and waits until the replica is
    /// in sync and every sentinel knows the replica and the other sentinels. Panics with the
    /// sentinels' log tails if that does not happen in time.
    pub fn around(master: RedisServer, config: SentinelConfig) -> SentinelTopology {
        assert!(config.sentinels > 0, "a Sentinel deployment needs at least one sentinel");
        let upstream = config.replicate_through.unwrap_or(master.port());
        let replica = RedisServer::start_with(RedisConfig {
            replica_of: Some(upstream),
            ..Default::default()
        });
        wait_for("the replica to be in sync with the master", || {
            let replication = info(replica.port(), "replication")?;
            Some(replication.get("master_link_status")? == "up")
        });
        let quorum = config.sentinels / 2 + 1;
        let sentinels = (0..config.sentinels).map(|_| sentinel(master.port(), quorum)).collect();
        let topology = SentinelTopology { sentinels, replica, master };
        let others = (config.sentinels - 1).to_string();
        for port in topology.sentinel_ports() {
            topology.wait_for("every sentinel to know the replica and the other sentinels", || {
                let state = sentinel_master(port)?;
                Some(
                    state.get("num-slaves")? != "0" && state.get("num-other-sentinels")? == &others,
                )
            });
        }
        topology
    }

    /// The URL of database 0 of the master through every sentinel:
    /// `redis+sentinel://127.0.0.1:P1,127.0.0.1:P2,…/baton/0`.
    pub fn url(&self) -> String {
        let sentinels: Vec<String> =
            self.sentinel_ports().iter().map(|port| format!("127.0.0.1:{port}")).collect();
        format!("redis+sentinel://{}/{MASTER_NAME}/0", sentinels.join(","))
    }

    /// The server that was the master at start.
    pub fn initial_master(&self) -> &RedisServer {
        &self.master
    }

    /// The server that was the replica at start.
    pub fn initial_replica(&self) -> &RedisServer {
        &self.replica
    }

    /// The sentinels' ports, in the order of [`url`](Self::url).
    pub fn sentinel_ports(&self) -> Vec<u16> {
        self.sentinels.iter().map(ServerProcess::port).collect()
    }

    /// Waits until every sentinel names the server at `port` as the master, and that server
    /// says it is a master. Panics with the sentinels' log tails after a minute.
    pub fn wait_for_master(&self, port: u16) {
        let wanted = port.to_string();
        self.wait_for(&format!("every sentinel to name 127.0.0.1:{port} as the master"), || {
            for sentinel in self.sentinel_ports() {
                let named: Option<(String, String)> = query(
                    sentinel,
                    redis::cmd("SENTINEL").arg("get-master-addr-by-name").arg(MASTER_NAME),
                )?;
                if named?.1 != wanted {
                    return Some(false);
                }
            }
            let role: Vec<Value> = query(port, &redis::cmd("ROLE"))?;
            Some(matches!(role.first(), Some(Value::BulkString(role)) if role == b"master"))
        });
    }

    fn wait_for(&self, what: &str, condition: impl FnMut() -> Option<bool>) {
        if !poll(condition) {
            let logs: Vec<String> =
                self.sentinels.iter().map(|sentinel| sentinel.log_tail(15)).collect();
            panic!("timed out waiting for {what}; sentinel logs:\n{}", logs.join("\n---\n"));
        }
    }
}

/// Starts one sentinel watching the master at `master` with `quorum`.
fn sentinel(master: u16, quorum: usize) -> ServerProcess {
    let binary = binary();
    let spec = ServerSpec::new("redis-sentinel", move |dir, port| {
        let config = format!(
            "port {port}\nbind 127.0.0.1\ndir {}\ndaemonize no\nlogfile \"\"\n\
             sentinel monitor {MASTER_NAME} 127.0.0.1 {master} {quorum}\n\
             sentinel down-after-milliseconds {MASTER_NAME} {}\n\
             sentinel failover-timeout {MASTER_NAME} 10000\n\
             sentinel parallel-syncs {MASTER_NAME} 1\n",
            dir.display(),
            DOWN_AFTER.as_millis(),
        );
        let file = dir.join("sentinel.conf");
        std::fs::write(&file, config)
            .unwrap_or_else(|err| panic!("cannot write {}: {err}", file.display()));
        let mut command = Command::new(&binary);
        command.arg(&file).arg("--sentinel");
        command
    })
    .probe(|probe| answers_ping(probe.port, None));
    ServerProcess::start(spec)
}

/// Sends one command to the server at `port`; `None` if it cannot be reached or refuses it.
fn query<T: FromRedisValue>(port: u16, command: &redis::Cmd) -> Option<T> {
    let client = redis::Client::open(format!("redis://127.0.0.1:{port}")).ok()?;
    let mut connection = client.get_connection_with_timeout(Duration::from_secs(2)).ok()?;
    connection.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    command.query(&mut connection).ok()
}

/// A section of `INFO` as fields and values.
fn info(port: u16, section: &str) -> Option<HashMap<String, String>> {
    let text: String = query(port, redis::cmd("INFO").arg(section))?;
    Some(
        text.lines()
            .filter_map(|line| line.trim().split_once(':'))
            .map(|(field, value)| (field.to_string(), value.to_string()))
            .collect(),
    )
}

/// What the sentinel at `port` knows of the master (`SENTINEL master`), as fields and values.
fn sentinel_master(port: u16) -> Option<HashMap<String, String>> {
    let fields: Vec<String> = query(port, redis::cmd("SENTINEL").arg("master").arg(MASTER_NAME))?;
    Some(fields.chunks(2).map(|pair| (pair[0].clone(), pair[1].clone())).collect())
}

/// Polls `condition` until it holds; `false` after [`SETTLE`].
fn poll(mut condition: impl FnMut() -> Option<bool>) -> bool {
    let deadline = Instant::now() + SETTLE;
    loop {
        if condition() == Some(true) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(POLL);
    }
}

/// Waits for a condition on one server; panics naming it after [`SETTLE`].
fn wait_for(what: &str, condition: impl FnMut() -> Option<bool>) {
    assert!(poll(condition), "timed out waiting for {what}");
}
