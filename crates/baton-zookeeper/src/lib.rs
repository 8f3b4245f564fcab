#![doc = include_str!("../README.md")]

mod acquire;
mod changes;
mod error;
mod history;
mod known;
mod paths;
mod reads;
mod record;
mod session;
mod store;
mod term;
mod url;

pub use acquire::HISTORY_LENGTH;
pub use store::ZkLeaseStore;
pub use url::DEFAULT_SESSION_TIMEOUT;
