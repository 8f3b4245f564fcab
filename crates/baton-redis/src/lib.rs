#![doc = include_str!("../README.md")]

mod changes;
mod error;
pub mod fence;
mod history;
mod keys;
mod lease;
mod link;
mod options;
mod reads;
mod record;
mod scripts;
mod sentinel;
mod server;
mod store;
mod url;

pub use options::{
    DEFAULT_CONNECT_TIMEOUT, DEFAULT_HISTORY_LENGTH, DEFAULT_RESPONSE_TIMEOUT, RedisOptions,
};
pub use store::RedisLeaseStore;
