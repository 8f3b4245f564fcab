//! Opening a backend by URL scheme.

use std::sync::Arc;

use baton_core::url::redact;
use baton_core::{ActionStore, ClusterStore, Error, JobStore, LeaseStore, Result};

/// An open connection to one coordination store.
#[derive(Clone)]
pub struct Backend {
    leases: Arc<dyn LeaseStore>,
    jobs: Arc<dyn JobStore>,
    cluster: Arc<dyn ClusterStore>,
    actions: Arc<dyn ActionStore>,
    migrator: Migrator,
}

#[derive(Clone)]
enum Migrator {
    Memory,
    #[cfg(feature = "sqlite")]
    Sqlite(baton_sqlite::SqliteBackend),
    #[cfg(feature = "postgres")]
    Postgres(baton_postgres::PostgresBackend),
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Backend").finish_non_exhaustive()
    }
}

/// The URL schemes this build accepts, for error messages.
fn accepted_schemes() -> &'static str {
    match (cfg!(feature = "sqlite"), cfg!(feature = "postgres")) {
        (true, true) => "sqlite://PATH, postgres://USER@HOST:PORT/DB or memory://",
        (true, false) => "sqlite://PATH or memory://",
        (false, true) => "postgres://USER@HOST:PORT/DB or memory://",
        (false, false) => "memory://",
    }
}

/// Opens the backend named by `url`: `sqlite://path/to/file.db`, `postgres://…`, or
/// `memory://` (this process only: for examples and tests).
///
/// Opening does not change the store; call [`Backend::migrate`] to create or upgrade its schema.
pub async fn connect(url: &str) -> Result<Backend> {
    let scheme = url.split_once("://").map(|(scheme, _)| scheme).unwrap_or("");
    match scheme {
        "memory" => Ok(Backend {
            leases: Arc::new(baton_core::memory::MemoryLeaseStore::default()),
            jobs: Arc::new(baton_core::memory::MemoryJobStore::new()),
            cluster: Arc::new(baton_core::memory::MemoryClusterStore::new()),
            actions: Arc::new(baton_core::memory::MemoryActionStore::default()),
            migrator: Migrator::Memory,
        }),
        #[cfg(feature = "sqlite")]
        "sqlite" => {
            let backend = baton_sqlite::SqliteBackend::connect(url).await?;
            Ok(Backend {
                leases: Arc::new(backend.leases()),
                jobs: Arc::new(backend.jobs()),
                cluster: Arc::new(backend.cluster()),
                actions: Arc::new(backend.actions()),
                migrator: Migrator::Sqlite(backend),
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
                migrator: Migrator::Postgres(backend),
            })
        }
        _ => Err(Error::invalid_input(format!(
            "unknown backend URL {}: expected {}",
            baton_core::echo::quoted(&redact(url)),
            accepted_schemes()
        ))),
    }
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

    /// Whether the store is an embedded file owned by baton (migrated on open by the CLI).
    pub fn is_embedded(&self) -> bool {
        match &self.migrator {
            Migrator::Memory => true,
            #[cfg(feature = "sqlite")]
            Migrator::Sqlite(_) => true,
            #[cfg(feature = "postgres")]
            Migrator::Postgres(_) => false,
        }
    }

    /// Creates or upgrades the schema; safe to run concurrently and repeatedly.
    pub async fn migrate(&self) -> Result<()> {
        match &self.migrator {
            Migrator::Memory => Ok(()),
            #[cfg(feature = "sqlite")]
            Migrator::Sqlite(backend) => backend.migrate().await,
            #[cfg(feature = "postgres")]
            Migrator::Postgres(backend) => backend.migrate().await,
        }
    }
}
