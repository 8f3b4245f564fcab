//! TLS over an endpoint's connections with rustls on ring (feature `rustls`): the server's
//! certificate checked against a `ca` file or the public CAs built in (Mozilla's list), and
//! always for the endpoint's host; handshake failures explained on one line in the URL's own
//! vocabulary.

use std::sync::Arc;

use async_trait::async_trait;
use baton_core::tls::{TlsFiles, TlsVocabulary, rustls_error};
use rustls::pki_types::ServerName;
use rustls::{ClientConfig, RootCertStore};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use crate::secure::{Explained, SecureLayer, SecureStream};

/// The rustls settings for `files`: their CA certificates to trust, or the public ones built
/// in, and their client certificate if given. The error is one line naming the option.
pub fn client_config(files: &TlsFiles) -> Result<ClientConfig, String> {
    let roots = match &files.ca {
        Some(ca) => {
            let mut roots = RootCertStore::empty();
            let (added, _) = roots.add_parsable_certificates(ca.certificates().to_vec());
            if added == 0 {
                return Err("ca= holds no certificate usable as a trusted CA".to_string());
            }
            roots
        }
        None => webpki_roots::TLS_SERVER_ROOTS.iter().cloned().collect(),
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|err| format!("TLS: {err}"))?
        .with_root_certificates(roots);
    match &files.client {
        None => Ok(builder.with_no_client_auth()),
        Some(client) => builder
            .with_client_auth_cert(client.cert.certificates().to_vec(), client.key.key())
            .map_err(|err| format!("cert= and key= cannot be used: {err}")),
    }
}

/// The name a server's certificate must hold: the host of `address` (`host:port`, or
/// `[address]:port` for IPv6), a DNS name or an IP address.
pub fn server_name(address: &str) -> Result<ServerName<'static>, String> {
    let host = match address.strip_prefix('[') {
        Some(bracketed) => bracketed.split_once(']').map_or(bracketed, |(host, _)| host),
        None => address.rsplit_once(':').map_or(address, |(host, _)| host),
    };
    ServerName::try_from(host.to_string()).map_err(|_| {
        format!(
            "host {} is neither a DNS name nor an IP address, so TLS cannot check it",
            baton_core::echo::quoted(host)
        )
    })
}

/// A secure layer of TLS with fixed settings and no client certificate to be refused: every
/// failure after the handshake counts as lost.
#[derive(Clone)]
pub struct Tls {
    connector: TlsConnector,
    vocabulary: TlsVocabulary,
    plain: &'static str,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls").finish_non_exhaustive()
    }
}

impl Tls {
    /// TLS with `config`; failures are explained with `vocabulary`, and a server that answers
    /// without TLS with `plain`, which says how the URL reaches one (such as `use an http://
    /// endpoint for one`).
    pub fn new(config: ClientConfig, vocabulary: TlsVocabulary, plain: &'static str) -> Tls {
        Tls { connector: TlsConnector::from(Arc::new(config)), vocabulary, plain }
    }

    /// The TLS failure in `err` or its sources on one line, or `None` when `err` is not about
    /// TLS.
    fn describe(&self, err: &(dyn std::error::Error + 'static)) -> Option<String> {
        match rustls_error(err)? {
            rustls::Error::InvalidMessage(_) => Some(format!(
                "TLS handshake failed: the server answered without TLS ({})",
                self.plain
            )),
            _ => self.vocabulary.explain(err),
        }
    }
}

#[async_trait]
impl SecureLayer for Tls {
    /// The TLS handshake over `stream` with the server at `address` (`host:port`), whose
    /// certificate must name `host`; the error explains the failure on one line.
    async fn handshake(
        &self,
        address: &str,
        stream: TcpStream,
    ) -> Result<Box<dyn SecureStream>, String> {
        let name = server_name(address)?;
        match self.connector.connect(name, stream).await {
            Ok(stream) => Ok(Box::new(stream)),
            Err(err) => Err(match self.describe(&err) {
                Some(explained) => explained,
                None if closed_unanswered(&err) => format!(
                    "TLS handshake failed: the server closed the connection without answering \
                     in TLS ({})",
                    self.plain
                ),
                None => format!("TLS handshake failed: {err}"),
            }),
        }
    }

    /// A request that failed over TLS: lost, explained on one line.
    fn explain(&self, err: &(dyn std::error::Error + 'static)) -> Option<Explained> {
        self.describe(err).map(Explained::Lost)
    }
}

/// Whether a TLS handshake failed because the peer closed the connection without answering, as
/// a plain listener does with a handshake it cannot read: with a FIN, or with a reset when the
/// handshake's bytes were still unread as it closed.
pub fn closed_unanswered(err: &std::io::Error) -> bool {
    matches!(err.kind(), std::io::ErrorKind::UnexpectedEof | std::io::ErrorKind::ConnectionReset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use baton_core::tls::HostCheck;

    const VOCABULARY: TlsVocabulary =
        TlsVocabulary { ca: "ca=", host_check: HostCheck::Always { scheme: "xs://" } };

    #[test]
    fn the_server_name_is_the_hosts() {
        let name = |address| server_name(address).map(|name| name.to_str().into_owned());
        assert_eq!(name("store.internal:443").unwrap(), "store.internal");
        assert_eq!(name("10.0.0.1:443").unwrap(), "10.0.0.1");
        assert_eq!(name("[::1]:443").unwrap(), "::1");
        assert!(name("bad_host!:443").unwrap_err().contains("\"bad_host!\""));
    }

    #[test]
    fn failures_are_explained_in_the_urls_words() {
        let files = TlsFiles { ca: None, client: None };
        let tls = Tls::new(client_config(&files).unwrap(), VOCABULARY, "use x:// for one");
        let plain = rustls::Error::InvalidMessage(rustls::InvalidMessage::InvalidContentType);
        assert_eq!(
            tls.explain(&std::io::Error::other(plain)),
            Some(Explained::Lost(
                "TLS handshake failed: the server answered without TLS (use x:// for one)".into()
            ))
        );
        let untrusted = rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer);
        assert!(
            tls.describe(&untrusted).unwrap().contains("name the CA's certificate file in ca=")
        );
        assert_eq!(tls.explain(&std::io::Error::other("reset")), None);
    }
}
