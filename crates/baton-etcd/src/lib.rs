#![doc = include_str!("../README.md")]

mod acquire;
mod changes;
mod client;
mod error;
mod floor;
mod grpc;
mod history;
mod keep_alive;
mod keys;
mod lease;
mod options;
mod pending;
mod probe;
mod reads;
mod record;
mod release;
mod renew;
mod sessions;
mod store;
mod tls;
mod url;
mod wire;

pub use options::{
    DEFAULT_CONNECT_TIMEOUT, DEFAULT_HISTORY_LENGTH, DEFAULT_REQUEST_TIMEOUT, EtcdOptions,
};
pub use store::EtcdLeaseStore;
