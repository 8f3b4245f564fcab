//! Telling a member that serves TLS only from one that fails otherwise, after a plain request
//! got no answer: etcd closes a plain connection to a TLS listener without a word (newer
//! versions answer it with a 400 that says so, see `error.rs`).

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use baton_core::tls::rustls_error;
use rustls::{ClientConfig, RootCertStore};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use crate::tls::server_name;

/// A client that trusts nothing: it sends no request, so any answer in TLS is enough.
static PROBE: LazyLock<Option<TlsConnector>> = LazyLock::new(|| {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .ok()?
        .with_root_certificates(RootCertStore::empty())
        .with_no_client_auth();
    Some(TlsConnector::from(Arc::new(config)))
});

/// Whether the member at `address` answers a TLS handshake within `timeout`: with a
/// certificate (trusted or not), or with a TLS alert. Nothing is sent but the handshake.
pub(crate) async fn speaks_tls(address: &str, timeout: Duration) -> bool {
    let (Ok(name), Some(probe)) = (server_name(address), PROBE.as_ref()) else {
        return false;
    };
    let handshake = async {
        let stream = TcpStream::connect(address).await.ok()?;
        Some(probe.connect(name, stream).await)
    };
    match tokio::time::timeout(timeout, handshake).await {
        Ok(Some(Ok(_))) => true,
        Ok(Some(Err(err))) => matches!(
            rustls_error(&err),
            Some(
                rustls::Error::InvalidCertificate(_)
                    | rustls::Error::AlertReceived(_)
                    | rustls::Error::PeerIncompatible(_)
            )
        ),
        Ok(None) | Err(_) => false,
    }
}
