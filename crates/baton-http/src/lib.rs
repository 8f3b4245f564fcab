#![doc = include_str!("../README.md")]

mod connection;
mod endpoint;
mod failure;
mod request;
mod secure;
#[cfg(feature = "rustls")]
pub mod tls;

pub use endpoint::Endpoint;
pub use failure::Failure;
pub use request::{Answer, Method, Request};
pub use secure::{Explained, SecureLayer, SecureStream};
