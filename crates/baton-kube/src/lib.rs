#![doc = include_str!("../README.md")]

mod acquire;
mod changes;
mod client;
mod events;
mod names;
mod reads;
mod record;
mod store;
mod term;
mod terms;
mod tokens;
mod url;

pub use record::HISTORY_LENGTH;
pub use store::KubeLeaseStore;
pub use url::DEFAULT_REQUEST_TIMEOUT;
