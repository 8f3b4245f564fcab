//! The stores of the matrix: how to start a throwaway instance of each, and what the faults
//! need of it (its port, a URL through the fault proxy, a crash, a restart, a stall).

use std::sync::Arc;
use std::time::Duration;

use tempfile::TempDir;

use crate::fake_clock::FakeClock;
use crate::faults::{self, Setup};
use crate::history;
use crate::node_args::NodeSetup;
use crate::servers::{
    AzuriteServer, ConsulServer, EtcdServer, KubeApiServer, MariadbServer, MotoServer,
    PostgresServer, RedisServer, ServerProcess, ZookeeperServer,
};

/// A store the matrix covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Store {
    /// An SQLite file: leases, state and ledger in one file.
    Sqlite,
    /// PostgreSQL: leases, state and ledger in one database.
    Postgres,
    /// MariaDB: leases, state and ledger in one database.
    Mariadb,
    /// Redis, for leases; the ledger in an SQLite file beside it.
    Redis,
    /// etcd, for leases; the ledger in an SQLite file beside it.
    Etcd,
    /// ZooKeeper, for leases; the ledger in an SQLite file beside it.
    Zookeeper,
    /// Lease objects on the testkit's emulated Kubernetes API server; the ledger in an SQLite
    /// file beside it.
    Kubernetes,
    /// Consul sessions and keys on the testkit's emulated Consul agent; the ledger in an
    /// SQLite file beside it.
    Consul,
    /// Blob leases on Azurite, Microsoft's Azure Storage emulator; the ledger in an SQLite file
    /// beside it.
    AzureBlob,
    /// Items of one table on moto's DynamoDB emulation; the ledger in an SQLite file beside it.
    DynamoDb,
}

impl Store {
    /// Every store, in the table's order.
    pub const ALL: [Store; 10] = [
        Store::Sqlite,
        Store::Postgres,
        Store::Mariadb,
        Store::Redis,
        Store::Etcd,
        Store::Zookeeper,
        Store::Kubernetes,
        Store::Consul,
        Store::AzureBlob,
        Store::DynamoDb,
    ];

    /// The name used on the command line and in the table.
    pub fn name(self) -> &'static str {
        match self {
            Store::Sqlite => "sqlite",
            Store::Postgres => "postgres",
            Store::Mariadb => "mariadb",
            Store::Redis => "redis",
            Store::Etcd => "etcd",
            Store::Zookeeper => "zookeeper",
            Store::Kubernetes => "kubernetes",
            Store::Consul => "consul",
            Store::AzureBlob => "azblob",
            Store::DynamoDb => "dynamodb",
        }
    }

    /// Every store's name, for a usage line.
    pub fn names() -> String {
        Store::ALL.map(Store::name).join(", ")
    }

    /// The store named `name`.
    pub fn parse(name: &str) -> Option<Store> {
        Store::ALL.into_iter().find(|store| store.name() == name)
    }

    /// The TTL the holders ask for: [`faults::TTL`], or the shortest the store grants.
    pub fn ttl(self) -> Duration {
        match self {
            Store::Consul => Duration::from_secs(10),
            Store::AzureBlob => baton::azblob::MIN_TTL,
            _ => faults::TTL,
        }
    }

    /// Whether the store is an emulation running inside the test process, which cannot be
    /// frozen on its own.
    pub fn in_process(self) -> bool {
        matches!(self, Store::Kubernetes | Store::Consul)
    }

    /// Whether the store keeps state (executions, nodes, partitions) besides leases; a
    /// lease-only store has its state in an SQLite file beside it.
    pub fn holds_state(self) -> bool {
        matches!(self, Store::Sqlite | Store::Postgres | Store::Mariadb)
    }

    /// Starts a throwaway instance on which the cells run `binaries`. Panics if it cannot.
    pub async fn start(self, binaries: &Binaries) -> StoreUnderTest {
        let dir = tempfile::tempdir().unwrap_or_else(|err| panic!("a temporary directory: {err}"));
        let server = tokio::task::spawn_blocking(move || Server::start(self))
            .await
            .unwrap_or_else(|err| panic!("cannot start {}: {err}", self.name()));
        let beside = format!("sqlite://{}", dir.path().join("ledger.db").display());
        let (url, ledger) = match &server {
            Server::Sqlite => (beside.replace("ledger.db", "baton.db"), None),
            Server::Postgres(server) => (server.url(), None),
            Server::Mariadb(server) => (server.url(), None),
            Server::Redis(server) => (server.url(), Some(beside)),
            Server::Etcd(server) => (server.url(), Some(beside)),
            Server::Zookeeper(server) => (server.url(), Some(beside)),
            Server::Kubernetes(server) => (kube_url(&server.kubeconfig()), Some(beside)),
            Server::Consul(server) => (server.url(), Some(beside)),
            Server::AzureBlob(server) => (server.url(), Some(beside)),
            Server::DynamoDb(server) => (server.url(), Some(beside)),
        };
        let setup = Setup {
            binary: binaries.holder.clone(),
            ledger: ledger.unwrap_or_else(|| url.clone()),
            url,
            lease: "ledger-writer".to_string(),
            ttl: self.ttl(),
            clock: FakeClock::REAL,
        };
        StoreUnderTest {
            store: self,
            setup,
            binaries: binaries.clone(),
            server: Arc::new(server),
            dir,
        }
    }
}

/// The testkit's binaries the cells start, one per workload.
#[derive(Debug, Clone)]
pub struct Binaries {
    /// `baton-test-holder`, a lease holder (W1).
    pub holder: String,
    /// `baton-test-node`, a scheduler node (W2).
    pub scheduler_node: String,
    /// `baton-cluster-node`, a node running partitioned batches (W3).
    pub cluster_node: String,
}

impl Binaries {
    /// The binaries in `dir`, or the first one missing.
    pub fn in_dir(dir: &std::path::Path) -> Result<Binaries, std::path::PathBuf> {
        let find = |name: &str| {
            let path = dir.join(name);
            path.exists().then(|| path.display().to_string()).ok_or(path)
        };
        Ok(Binaries {
            holder: find("baton-test-holder")?,
            scheduler_node: find("baton-test-node")?,
            cluster_node: find("baton-cluster-node")?,
        })
    }
}

/// A running instance of a store, and the nodes' setup on it.
pub struct StoreUnderTest {
    /// Which store it is.
    pub store: Store,
    /// Where the holders run: binary, URLs, lease and TTL.
    pub setup: Setup,
    binaries: Binaries,
    server: Arc<Server>,
    dir: TempDir,
}

enum Server {
    Sqlite,
    Postgres(PostgresServer),
    Mariadb(MariadbServer),
    Redis(RedisServer),
    Etcd(EtcdServer),
    Zookeeper(ZookeeperServer),
    Kubernetes(KubeApiServer),
    Consul(ConsulServer),
    AzureBlob(AzuriteServer),
    DynamoDb(MotoServer),
}

impl Server {
    fn start(store: Store) -> Server {
        match store {
            Store::Sqlite => Server::Sqlite,
            Store::Postgres => Server::Postgres(PostgresServer::start()),
            Store::Mariadb => Server::Mariadb(MariadbServer::start()),
            Store::Redis => Server::Redis(RedisServer::start()),
            Store::Etcd => Server::Etcd(EtcdServer::start()),
            Store::Zookeeper => Server::Zookeeper(ZookeeperServer::start()),
            Store::Kubernetes => Server::Kubernetes(KubeApiServer::start()),
            Store::Consul => Server::Consul(ConsulServer::start()),
            Store::AzureBlob => Server::AzureBlob(AzuriteServer::start()),
            Store::DynamoDb => Server::DynamoDb(MotoServer::start()),
        }
    }

    /// The server's process, where the store is one.
    fn process(&self) -> Option<&ServerProcess> {
        match self {
            Server::Sqlite | Server::Kubernetes(_) | Server::Consul(_) => None,
            Server::Postgres(server) => Some(server.process()),
            Server::Mariadb(server) => Some(server.process()),
            Server::Redis(server) => Some(server.process()),
            Server::Etcd(server) => Some(server.process()),
            Server::Zookeeper(server) => Some(server.process()),
            Server::AzureBlob(server) => Some(server.process()),
            Server::DynamoDb(server) => Some(server.process()),
        }
    }
}

fn kube_url(kubeconfig: &std::path::Path) -> String {
    format!("kube://default?kubeconfig={}", kubeconfig.display())
}

impl StoreUnderTest {
    /// Where scheduler nodes run: state in the store, or in the SQLite file beside a
    /// lease-only one, and leases in the store.
    pub fn scheduler(&self) -> NodeSetup {
        NodeSetup {
            binary: self.binaries.scheduler_node.clone(),
            url: self.setup.ledger.clone(),
            leases: self.setup.url.clone(),
            ttl: self.setup.ttl,
        }
    }

    /// Where cluster nodes run, as [`StoreUnderTest::scheduler`].
    pub fn partitions(&self) -> NodeSetup {
        NodeSetup {
            binary: self.binaries.cluster_node.clone(),
            url: self.setup.ledger.clone(),
            leases: self.setup.url.clone(),
            ttl: self.setup.ttl,
        }
    }

    /// The loopback port the store listens on; `None` for a file.
    pub fn port(&self) -> Option<u16> {
        match &*self.server {
            Server::Sqlite => None,
            Server::Kubernetes(server) => Some(server.port()),
            Server::Consul(server) => Some(server.port()),
            server => server.process().map(ServerProcess::port),
        }
    }

    /// The store's URL reaching it through a proxy listening on `port`.
    pub fn url_through(&self, port: u16) -> String {
        let own = self.port().expect("a store with a server");
        match &*self.server {
            Server::Kubernetes(server) => {
                let config = std::fs::read_to_string(server.kubeconfig())
                    .unwrap_or_else(|err| panic!("cannot read the kubeconfig: {err}"));
                let path = self.dir.path().join("through-proxy.kubeconfig");
                let through = config.replace(&server.url(), &format!("http://127.0.0.1:{port}"));
                std::fs::write(&path, through)
                    .unwrap_or_else(|err| panic!("cannot write a kubeconfig: {err}"));
                kube_url(&path)
            }
            _ => {
                let url = self.setup.url.replacen(&format!(":{own}"), &format!(":{port}"), 1);
                assert_ne!(url, self.setup.url, "the URL names the port {own}");
                url
            }
        }
    }

    /// Crashes the store: SIGKILL of its server, or an emulation's port closed. Azurite is
    /// stopped gracefully instead: it saves its data only every 5 s and on a graceful stop, so
    /// a kill would lose the last writes, which Azure itself never does.
    pub fn crash(&self) {
        history::nemesis("crash", self.store.name());
        match &*self.server {
            Server::AzureBlob(server) => server.process().stop(),
            Server::Kubernetes(server) => server.stop(),
            Server::Consul(server) => server.stop(),
            server => server.process().expect("a server process").kill(),
        }
    }

    /// Starts the crashed store again on the same port and data.
    pub fn restart(&self) {
        history::nemesis("restart", self.store.name());
        match &*self.server {
            Server::Kubernetes(server) => server.restart(),
            Server::Consul(server) => server.restart(),
            server => server.process().expect("a server process").restart(),
        }
    }

    /// Freezes the store's server (SIGSTOP) for `length`, then thaws it, from a thread of its
    /// own: the returned handle ends with the thaw.
    pub fn stall(&self, length: Duration) -> std::thread::JoinHandle<()> {
        let server = self.server.clone();
        history::nemesis(&format!("freeze for {length:?}"), self.store.name());
        server.process().expect("a server process").pause();
        std::thread::spawn(move || {
            std::thread::sleep(length);
            server.process().expect("a server process").resume();
        })
    }
}
