//! The seam for a secure layer (TLS) over an endpoint's connections: the backend brings its own
//! handshake and its own explanation of the failures the layer causes.

use async_trait::async_trait;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

/// A connection after the secure layer's handshake.
pub trait SecureStream: AsyncRead + AsyncWrite + Unpin + Send + 'static {}

impl<T: AsyncRead + AsyncWrite + Unpin + Send + 'static> SecureStream for T {}

/// What a secure layer makes of the failure of a request sent through it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Explained {
    /// The endpoint refused the connection itself (TLS 1.3 reports a refused client certificate
    /// only with the first answer): the request was not served.
    NotServed(String),
    /// The layer failed after the request was sent: it may have been applied.
    Lost(String),
}

/// A secure layer over the connections to an endpoint, such as TLS.
#[async_trait]
pub trait SecureLayer: Send + Sync + 'static {
    /// The handshake over a new connection to `address` (`host:port`); the error explains the
    /// failure on one line (nothing was sent).
    async fn handshake(
        &self,
        address: &str,
        stream: TcpStream,
    ) -> Result<Box<dyn SecureStream>, String>;

    /// The failure `err` of a request sent through this layer explained on one line, or `None`
    /// when the layer has nothing to say about it.
    fn explain(&self, err: &(dyn std::error::Error + 'static)) -> Option<Explained>;
}
