//! Throwaway real servers for tests, started from the machine's binaries on a free loopback
//! port in a temporary directory, and cleaned up when dropped (even when a test panics).
//!
//! [`ServerProcess`] is the generic part; a server kind adds only its command line and
//! readiness probe in a [`ServerSpec`], as [`PostgresServer`], [`MariadbServer`],
//! [`RedisServer`] and [`EtcdServer`] do. PostgreSQL and Redis can also listen on the IPv6
//! loopback address; all four can serve TLS. [`SentinelTopology`] puts a Redis master, its
//! replica and sentinels together; [`ZookeeperServer`] and [`ZookeeperEnsemble`] run ZooKeeper
//! standalone or as three members. [`KubeApiServer`] emulates the part of the Kubernetes API a
//! Lease-based leader elector uses, over an [`EtcdServer`] of its own; [`ConsulServer`]
//! emulates the slice of Consul's HTTP API that the Consul lease store uses.

mod azurite;
mod consul;
mod etcd;
mod family;
mod http_emulation;
mod kube_api;
mod mariadb;
mod mariadb_config;
mod moto;
mod postgres;
mod postgres_config;
mod process;
mod redis;
mod sentinel;
mod spec;
mod template;
mod tls;
mod zookeeper;

pub use azurite::{AZURITE_VERSION, AzuriteServer};
pub use consul::ConsulServer;
pub use etcd::{EtcdCluster, EtcdServer};
pub use kube_api::KubeApiServer;
pub use mariadb::MariadbServer;
pub use mariadb_config::MariadbConfig;
pub use moto::MotoServer;
pub use postgres::PostgresServer;
pub use postgres_config::PostgresConfig;
pub use process::ServerProcess;
pub use redis::{RedisConfig, RedisServer};
pub use sentinel::{SentinelConfig, SentinelTopology};
pub use spec::{Probe, RunAs, ServerSpec, running_as_root, tcp_accepts};
pub use tls::ServerTls;
pub use zookeeper::{ZookeeperEnsemble, ZookeeperServer};
