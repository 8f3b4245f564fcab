#![doc = include_str!("../README.md")]

mod acquire;
mod changes;
mod client;
mod error;
mod floor;
mod keys;
mod reads;
mod record;
mod store;
mod term;
mod terms;
mod url;
mod wire;

pub use floor::PlainLock;
pub use record::HISTORY_LENGTH;
pub use store::{ConsulLeaseStore, TOKEN_VARIABLE};
pub use url::{DEFAULT_PREFIX, DEFAULT_REQUEST_TIMEOUT};
