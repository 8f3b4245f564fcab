//! Opening a backend by URL scheme: one store for everything, or leases in one store and state
//! in another.

use std::sync::Arc;

use baton_core::url::redact;
use baton_core::{ActionStore, ClusterStore, Error, JobStore, LeaseStore, Migration, Result};

/// Open connections to the coordination stores: the lease store, and the state store that keeps
/// jobs, executions, nodes, batches and the operator action log.
///
/// Both are usually one database; [`connect_split`] keeps leases in a lease-only store such as
/// Redis and the state in SQL.
#[derive(Clone)]
pub struct Backend {
    leases: Arc<dyn LeaseStore>,
    jobs: Arc<dyn JobStore>,
    cluster: Arc<dyn ClusterStore>,
    actions: Arc<dyn ActionStore>,
    schemas: Vec<Schema>,
}

/// A store whose schema baton creates and upgrades.
#[derive(Clone)]
enum Schema {
    #[cfg(feature = "sqlite")]
    Sqlite(baton_sqlite::SqliteBackend),
    #[cfg(feature = "postgres")]
    Postgres(baton_postgres::PostgresBackend),
    #[cfg(feature = "mysql")]
    Mysql(baton_mysql::MysqlBackend),
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Backend").finish_non_exhaustive()
    }
}

/// The URL schemes of stores that hold everything, for error messages.
fn state_schemes() -> String {
    let forms = [
        (cfg!(feature = "sqlite"), "sqlite://PATH"),
        (cfg!(feature = "postgres"), "postgres://USER@HOST:PORT/DB"),
        (cfg!(feature = "mysql"), "mysql://USER@HOST:PORT/DB"),
        (true, "memory://"),
    ];
    let forms: Vec<&str> =
        forms.into_iter().filter_map(|(built, form)| built.then_some(form)).collect();
    match forms.split_last() {
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

fn scheme(url: &str) -> &str {
    url.split_once("://").map(|(scheme, _)| scheme).unwrap_or("")
}

/// What the store a URL names can hold, judged by its scheme alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlKind {
    /// Leases and state: jobs, executions, nodes, batches and actions.
    Everything,
    /// Leases only (Redis, etcd, ZooKeeper, Kubernetes, Consul, DynamoDB, Azure Blob): state
    /// needs another store beside it, see [`connect_split`].
    LeasesOnly,
}

/// The lease-only stores: whether this build has each (its cargo feature), its URL schemes, and
/// the forms of its URLs, for error messages. [`open_leases`] opens each built one.
const LEASE_ONLY: &[(bool, &[&str], &str)] = &[
    (
        cfg!(feature = "redis"),
        &["redis", "rediss", "redis+sentinel", "rediss+sentinel"],
        "redis[s]://HOST:PORT, redis[s]+sentinel://HOST:PORT[,…]/MASTER",
    ),
    (cfg!(feature = "zookeeper"), &["zk"], "zk://HOST:PORT[,…][/CHROOT]"),
    (cfg!(feature = "etcd"), &["etcd", "etcds"], "etcd[s]://HOST:PORT[,…]"),
    (cfg!(feature = "kube"), &["kube"], "kube://[NAMESPACE]"),
    (cfg!(feature = "consul"), &["consul"], "consul://HOST:PORT"),
    (cfg!(feature = "azblob"), &["azblob"], "azblob://ACCOUNT/CONTAINER[?endpoint=URL]"),
    (cfg!(feature = "dynamodb"), &["dynamodb"], "dynamodb://TABLE?region=REGION"),
];

/// What the store named by `url` can hold, without opening it; an unknown scheme, or one this
/// build lacks, is refused with one line naming the accepted ones.
pub fn url_kind(url: &str) -> Result<UrlKind> {
    match scheme(url) {
        "memory" => Ok(UrlKind::Everything),
        #[cfg(feature = "sqlite")]
        "sqlite" => Ok(UrlKind::Everything),
        #[cfg(feature = "postgres")]
        "postgres" | "postgresql" => Ok(UrlKind::Everything),
        #[cfg(feature = "mysql")]
        "mysql" | "mariadb" => Ok(UrlKind::Everything),
        scheme
            if LEASE_ONLY.iter().any(|&(built, schemes, _)| built && schemes.contains(&scheme)) =>
        {
            Ok(UrlKind::LeasesOnly)
        }
        _ => Err(unknown_scheme(url)),
    }
}

fn is_lease_only(url: &str) -> bool {
    matches!(url_kind(url), Ok(UrlKind::LeasesOnly))
}

/// Opens the backend named by `url`: `sqlite://path/to/file.db`, `postgres://…`,
/// `mysql://…` (or `mariadb://…`), or `memory://` (this process only: for examples and tests). Leases and state are both kept
/// there.
///
/// A lease-only store (`redis://…`, `etcd://…`, `zk://…`, `kube://…`, `consul://…`,
/// `dynamodb://…`, `azblob://…`) is refused with one line: open it with [`connect_leases`], or
/// pair it with a state store with [`connect_split`].
///
/// Opening does not change the store; call [`Backend::migrate`] to create or upgrade its schema.
pub async fn connect(url: &str) -> Result<Backend> {
    match scheme(url) {
        "memory" => Ok(Backend {
            leases: Arc::new(baton_core::memory::MemoryLeaseStore::default()),
            jobs: Arc::new(baton_core::memory::MemoryJobStore::new()),
            cluster: Arc::new(baton_core::memory::MemoryClusterStore::new()),
            actions: Arc::new(baton_core::memory::MemoryActionStore::default()),
            schemas: Vec::new(),
        }),
        #[cfg(feature = "sqlite")]
        "sqlite" => {
            let backend = baton_sqlite::SqliteBackend::connect(url).await?;
            Ok(Backend {
                leases: Arc::new(backend.leases()),
                jobs: Arc::new(backend.jobs()),
                cluster: Arc::new(backend.cluster()),
                actions: Arc::new(backend.actions()),
                schemas: vec![Schema::Sqlite(backend)],
            })
        }
        #[cfg(feature = "postgres")]
        "postgres" | "postgresql" => {
            let backend = baton_postgres::PostgresBackend::connect(url).await?;
            Ok(Backend {
                leases: Arc::new(backend.leases()),
                jobs: Arc::new(backend.jobs()),
                cluster: Arc::new(backend.cluster()),
                actions: Arc::new(backend.actions()),
                schemas: vec![Schema::Postgres(backend)],
            })
        }
        #[cfg(feature = "mysql")]
        "mysql" | "mariadb" => {
            let backend = baton_mysql::MysqlBackend::connect(url).await?;
            Ok(Backend {
                leases: Arc::new(backend.leases()),
                jobs: Arc::new(backend.jobs()),
                cluster: Arc::new(backend.cluster()),
                actions: Arc::new(backend.actions()),
                schemas: vec![Schema::Mysql(backend)],
            })
        }
        _ if is_lease_only(url) => Err(Error::invalid_input(format!(
            "{} holds leases only: executions, fires, nodes and partitions need a state store \
             ({}) beside it",
            baton_core::echo::quoted(&redact(url)),
            state_schemes()
        ))),
        _ => Err(unknown_scheme(url)),
    }
}

fn unknown_scheme(url: &str) -> Error {
    let lease_only =
        LEASE_ONLY.iter().filter_map(|&(built, _, form)| built.then_some(form)).collect::<Vec<_>>();
    let lease_only = match lease_only.is_empty() {
        true => String::new(),
        false => format!(", or for leases only {}", lease_only.join(", ")),
    };
    Error::invalid_input(format!(
        "unknown backend URL {}: expected {}{lease_only}",
        baton_core::echo::quoted(&redact(url)),
        state_schemes(),
    ))
}

/// Opens only the lease store named by `url`: any scheme [`connect`] accepts, and the lease-only
/// stores (`redis://…`, `rediss://…`, `redis+sentinel://…` and `rediss+sentinel://…` with the
/// `redis` feature, `etcd://…` and `etcds://…` with the `etcd` feature, `zk://…` with the
/// `zookeeper` feature, `kube://…` with the `kube` feature, `consul://…` with the `consul`
/// feature, `dynamodb://…` with the `dynamodb` feature, `azblob://…` with the `azblob`
/// feature).
///
/// Opening does not change the store; a SQL store still needs [`Backend::migrate`] once.
pub async fn connect_leases(url: &str) -> Result<Arc<dyn LeaseStore>> {
    Ok(open_leases(url).await?.0)
}

/// The lease store at `url`, and its schema when baton manages one. Each scheme of
/// [`LEASE_ONLY`] this build has is opened here (a test checks it).
async fn open_leases(url: &str) -> Result<(Arc<dyn LeaseStore>, Option<Schema>)> {
    match scheme(url) {
        #[cfg(feature = "redis")]
        "redis" | "rediss" | "redis+sentinel" | "rediss+sentinel" => {
            Ok((Arc::new(baton_redis::RedisLeaseStore::connect(url).await?), None))
        }
        #[cfg(feature = "zookeeper")]
        "zk" => Ok((Arc::new(baton_zookeeper::ZkLeaseStore::connect(url).await?), None)),
        #[cfg(feature = "etcd")]
        "etcd" | "etcds" => Ok((Arc::new(baton_etcd::EtcdLeaseStore::connect(url).await?), None)),
        #[cfg(feature = "kube")]
        "kube" => Ok((Arc::new(baton_kube::KubeLeaseStore::connect(url).await?), None)),
        #[cfg(feature = "consul")]
        "consul" => Ok((Arc::new(baton_consul::ConsulLeaseStore::connect(url).await?), None)),
        #[cfg(feature = "azblob")]
        "azblob" => Ok((Arc::new(baton_azblob::AzblobLeaseStore::connect(url).await?), None)),
        #[cfg(feature = "dynamodb")]
        "dynamodb" => Ok((Arc::new(baton_dynamodb::DynamoDbLeaseStore::connect(url).await?), None)),
        _ => {
            let mut backend = connect(url).await?;
            Ok((backend.leases, backend.schemas.pop()))
        }
    }
}

/// Opens leases at `lease_url` and everything else at `state_url`, for example leases in Redis
/// or ZooKeeper and state in PostgreSQL. Equal URLs open one backend, as [`connect`] does.
///
/// Splitting is safe because nothing in the state store is fenced by the lease store: fires are
/// recorded once by their identity whoever records them, and executions and partitions draw
/// their fencing tokens from the state store itself.
pub async fn connect_split(lease_url: &str, state_url: &str) -> Result<Backend> {
    if lease_url == state_url {
        return connect(url_or_lease_only(state_url)?).await;
    }
    let mut backend = connect(url_or_lease_only(state_url)?).await?;
    let (leases, schema) = open_leases(lease_url).await?;
    backend.leases = leases;
    backend.schemas.extend(schema);
    Ok(backend)
}

/// `url`, unless it names a lease-only store, which cannot hold state.
fn url_or_lease_only(url: &str) -> Result<&str> {
    if is_lease_only(url) {
        return Err(Error::invalid_input(format!(
            "state backend {} holds leases only: give {} for the state",
            redact(url),
            state_schemes()
        )));
    }
    Ok(url)
}

impl Backend {
    /// The lease store of this backend.
    pub fn leases(&self) -> Arc<dyn LeaseStore> {
        self.leases.clone()
    }

    /// The job store of this backend: job definitions and their executions.
    pub fn jobs(&self) -> Arc<dyn JobStore> {
        self.jobs.clone()
    }

    /// The cluster store of this backend: nodes, partitioned batches and their partitions.
    pub fn cluster(&self) -> Arc<dyn ClusterStore> {
        self.cluster.clone()
    }

    /// The operator action log of this backend: who asked for what, and when.
    pub fn actions(&self) -> Arc<dyn ActionStore> {
        self.actions.clone()
    }

    /// Whether every store with a schema is an embedded file owned by baton (migrated on open
    /// by the CLI).
    pub fn is_embedded(&self) -> bool {
        self.schemas.iter().all(|schema| match *schema {
            #[cfg(feature = "sqlite")]
            Schema::Sqlite(_) => true,
            #[cfg(feature = "postgres")]
            Schema::Postgres(_) => false,
            #[cfg(feature = "mysql")]
            Schema::Mysql(_) => false,
        })
    }

    /// Creates or upgrades the schema of every store baton manages here; safe to run
    /// concurrently and repeatedly. Answers, per store, the migrations this run applied.
    pub async fn migrate(&self) -> Result<Vec<Migrated>> {
        let mut migrated = Vec::with_capacity(self.schemas.len());
        for schema in &self.schemas {
            let (store, applied) = match *schema {
                #[cfg(feature = "sqlite")]
                Schema::Sqlite(ref backend) => ("SQLite", backend.migrate().await?),
                #[cfg(feature = "postgres")]
                Schema::Postgres(ref backend) => ("PostgreSQL", backend.migrate().await?),
                #[cfg(feature = "mysql")]
                Schema::Mysql(ref backend) => ("MySQL", backend.migrate().await?),
            };
            migrated.push(Migrated { store, applied });
        }
        Ok(migrated)
    }
}

/// What [`Backend::migrate`] did to one store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Migrated {
    /// The kind of store: `SQLite`, `PostgreSQL` or `MySQL`.
    pub store: &'static str,
    /// The migrations applied, in order; empty when its schema was already current.
    pub applied: Vec<Migration>,
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// Each lease-only scheme this build has is judged lease-only and opened by its own store,
    /// not refused by [`connect`]: [`LEASE_ONLY`] and [`open_leases`] agree. The URL carries
    /// an unknown parameter, so that its store answers at once with an error of its own.
    #[tokio::test]
    async fn every_lease_only_scheme_is_opened_by_its_store() {
        for &(built, schemes, _) in LEASE_ONLY {
            for scheme in schemes {
                // An unknown parameter: each store refuses it before connecting anywhere.
                let url = format!("{scheme}://localhost:1?baton_unknown=1");
                assert_eq!(url_kind(&url).ok(), built.then_some(UrlKind::LeasesOnly), "{url}");
                if !built {
                    continue;
                }
                let opened = tokio::time::timeout(Duration::from_secs(5), open_leases(&url))
                    .await
                    .unwrap_or_else(|_| panic!("{url}: no answer within 5 s"));
                let Err(err) = opened else { panic!("{url}: the unknown parameter was taken") };
                let err = err.to_string();
                let refused = err.contains("holds leases only") || err.contains("unknown backend");
                assert!(!refused, "{url} was refused, not opened by its store: {err}");
            }
        }
    }
}
