//! baton: leases with fencing tokens and leader election over the stores you already run.
//!
//! Start with [`connect`] to open a backend by URL, then an [`Elector`] to hold leases:
//!
//! ```no_run
//! # async fn example() -> baton::Result<()> {
//! let backend = baton::connect("sqlite://baton.db").await?;
//! backend.migrate().await?;
//! let elector = baton::Elector::new(backend.leases(), baton::ElectorConfig::default())?;
//! let guard = elector.acquire(&"settlement".parse()?).await?;
//! // Do the work while the lease is held; pass guard.token() to every write.
//! guard.ensure_valid()?;
//! guard.release().await?;
//! # Ok(())
//! # }
//! ```

mod backend;
mod claim;
pub mod cluster;
pub mod elector;
pub mod metrics;
pub mod scheduler;

pub use backend::{Backend, Migrated, UrlKind, connect, connect_leases, connect_split, url_kind};
pub use baton_core::url::redact;
pub use baton_core::{
    ChangeReason, Cursor, Error, ErrorKind, FencingToken, HistoryParams, HolderId, LeaderChange,
    Lease, LeaseName, LeaseStore, Migration, Page, Result, StoreTime,
};
pub use elector::{
    Acquisition, Campaign, Elector, ElectorConfig, LeaderGuard, LeaderHandle, Leadership,
};

/// The core vocabulary and backend traits, for backend authors and advanced use.
pub use baton_core as core;
#[cfg(feature = "etcd")]
pub use baton_etcd as etcd;
#[cfg(feature = "mysql")]
pub use baton_mysql as mysql;
#[cfg(feature = "postgres")]
pub use baton_postgres as postgres;
#[cfg(feature = "redis")]
pub use baton_redis as redis;
#[cfg(feature = "sqlite")]
pub use baton_sqlite as sqlite;
#[cfg(feature = "zookeeper")]
pub use baton_zookeeper as zookeeper;
