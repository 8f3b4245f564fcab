#![doc = include_str!("../README.md")]

mod acquire;
mod client;
mod container;
mod epoch;
mod listing;
mod names;
mod reads;
mod record;
mod sign;
mod store;
mod term;
mod url;

pub use acquire::{MAX_TTL, MIN_TTL};
pub use container::BlobContainer;
pub use record::HISTORY_LENGTH;
pub use store::AzblobLeaseStore;
pub use url::{CONNECTION_STRING_VARIABLE, DEFAULT_REQUEST_TIMEOUT, KEY_VARIABLE};
