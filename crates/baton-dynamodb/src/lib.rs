#![doc = include_str!("../README.md")]

mod acquire;
mod client;
mod connect;
mod history;
mod keys;
mod reads;
mod record;
mod store;
mod term;
mod terms;
mod tokens;
mod url;

pub use history::HISTORY_LENGTH;
pub use store::DynamoDbLeaseStore;
pub use url::DEFAULT_REQUEST_TIMEOUT;
