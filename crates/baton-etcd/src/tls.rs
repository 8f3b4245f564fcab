//! TLS to the members of an `etcds://` URL: rustls on ring, the server's certificate checked
//! against the `ca` file or the public CAs built in (Mozilla's list) and always for the
//! member's host, an optional client certificate, and handshake failures explained on one line.

use std::sync::Arc;

use async_trait::async_trait;
use baton_core::tls::{HostCheck, TlsFiles, TlsOptions, TlsVocabulary, rustls_error};
use baton_http::tls::client_config;
pub(crate) use baton_http::tls::server_name;
use baton_http::{Explained, SecureLayer, SecureStream};
use rustls::AlertDescription;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

/// How an `etcds://` URL takes its certificate files.
pub(crate) const OPTIONS: TlsOptions =
    TlsOptions { schemes: "etcds://", default_roots: "the public CAs built in (Mozilla's list)" };

/// How handshake failures name the URL's settings: the host name is always checked.
const VOCABULARY: TlsVocabulary =
    TlsVocabulary { ca: "ca=", host_check: HostCheck::Always { scheme: "etcds://" } };

/// The rustls settings of every connection to the members of an `etcds://` URL.
#[derive(Clone)]
pub(crate) struct Tls {
    /// For the JSON gateway's HTTP/1.1 connections.
    connector: TlsConnector,
    /// For the keep-alive stream's HTTP/2 connection: the same settings, offering ALPN `h2`.
    h2: TlsConnector,
    /// Whether the URL gives a client certificate.
    client_certificate: bool,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls").finish_non_exhaustive()
    }
}

impl Tls {
    /// The settings for `files`: their CA certificates to trust, or the built-in ones, and
    /// their client certificate if given. The error is one line naming the option.
    pub(crate) fn new(files: TlsFiles) -> Result<Tls, String> {
        let config = client_config(&files)?;
        let client_certificate = files.client.is_some();
        let mut h2 = config.clone();
        h2.alpn_protocols = vec![b"h2".to_vec()];
        Ok(Tls {
            connector: TlsConnector::from(Arc::new(config)),
            h2: TlsConnector::from(Arc::new(h2)),
            client_certificate,
        })
    }

    /// The handshake of the JSON gateway's connections offering HTTP/2 (ALPN `h2`), which etcd's
    /// gRPC service needs over TLS.
    pub(crate) async fn handshake_h2(
        &self,
        address: &str,
        stream: TcpStream,
    ) -> Result<TlsStream<TcpStream>, String> {
        self.handshake_with(&self.h2, address, stream).await
    }

    async fn handshake_with(
        &self,
        connector: &TlsConnector,
        address: &str,
        stream: TcpStream,
    ) -> Result<TlsStream<TcpStream>, String> {
        let name = server_name(address)?;
        connector.connect(name, stream).await.map_err(|err| match self.describe(&err) {
            Some(explained) => explained,
            // A plain etcd closes the connection on a handshake it cannot read: with a FIN, or
            // with a reset when the handshake's bytes were still unread as it closed.
            None if baton_http::tls::closed_unanswered(&err) => {
                "TLS handshake failed: the member closed the connection without answering in \
                 TLS, as a plain listener does (use etcd:// for one)"
                    .to_string()
            }
            None => format!("TLS handshake failed: {err}"),
        })
    }

    /// A TLS failure in `err` or its sources explained on one line, or `None` when `err` is not
    /// about TLS: the member answering without TLS, demanding a client certificate or refusing
    /// the one given, or (as [`TlsVocabulary::explain`] says) presenting a certificate that is
    /// not trusted.
    pub(crate) fn describe(&self, err: &(dyn std::error::Error + 'static)) -> Option<String> {
        let explained = match (client_refusal(err), rustls_error(err)?) {
            // Which alert refuses a missing certificate depends on the server's TLS library.
            (Some(_), _) if !self.client_certificate => {
                "the member demands a client certificate: give cert=PATH&key=PATH".to_string()
            }
            (Some(alert), _) => format!(
                "the member refused the client certificate ({alert:?}): give cert= and key= of \
                 a certificate signed by a CA in its --trusted-ca-file"
            ),
            (None, rustls::Error::InvalidMessage(_)) => {
                "the member answered without TLS (use etcd:// for a plain listener)".to_string()
            }
            (None, _) => return VOCABULARY.explain(err),
        };
        Some(format!("TLS handshake failed: {explained}"))
    }
}

/// The JSON gateway's connections: HTTP/1.1 over TLS, with a refused client certificate told
/// apart from a lost request.
#[async_trait]
impl SecureLayer for Tls {
    /// The TLS handshake over `stream` with the member at `address` (`host:port`), whose
    /// certificate must name `host`; the error explains the failure on one line.
    async fn handshake(
        &self,
        address: &str,
        stream: TcpStream,
    ) -> Result<Box<dyn SecureStream>, String> {
        let stream = self.handshake_with(&self.connector, address, stream).await?;
        Ok(Box::new(stream))
    }

    /// A request that failed over TLS: not served if the member refused the client's
    /// certificate (TLS 1.3 reports it only with the answer), lost otherwise.
    fn explain(&self, err: &(dyn std::error::Error + 'static)) -> Option<Explained> {
        let why = self.describe(err)?;
        Some(match is_client_refused(err) {
            true => Explained::NotServed(why),
            false => Explained::Lost(why),
        })
    }
}

/// Whether `err` is the member refusing the TLS handshake over the client's certificate: with
/// TLS 1.3 that refusal arrives with the first answer, yet the request was never served.
pub(crate) fn is_client_refused(err: &(dyn std::error::Error + 'static)) -> bool {
    client_refusal(err).is_some()
}

/// The alert with which the member refused the client's certificate, if `err` holds one.
fn client_refusal(err: &(dyn std::error::Error + 'static)) -> Option<AlertDescription> {
    use AlertDescription::{
        AccessDenied, BadCertificate, CertificateRequired, CertificateUnknown, UnknownCA,
        UnsupportedCertificate,
    };
    match rustls_error(err)? {
        rustls::Error::AlertReceived(
            alert @ (CertificateRequired
            | BadCertificate
            | UnsupportedCertificate
            | CertificateUnknown
            | UnknownCA
            | AccessDenied),
        ) => Some(*alert),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_of_the_client_certificate_are_explained() {
        let files = TlsFiles { ca: None, client: None };
        let mut tls = Tls::new(files).unwrap();
        let io =
            std::io::Error::other(rustls::Error::AlertReceived(AlertDescription::BadCertificate));
        assert!(is_client_refused(&io));
        assert_eq!(
            tls.describe(&io).unwrap(),
            "TLS handshake failed: the member demands a client certificate: give \
             cert=PATH&key=PATH"
        );
        tls.client_certificate = true;
        assert!(tls.describe(&io).unwrap().contains("refused the client certificate"));
        let plain = rustls::Error::InvalidMessage(rustls::InvalidMessage::InvalidContentType);
        assert!(tls.describe(&plain).unwrap().contains("use etcd://"));
        assert!(!is_client_refused(&plain));
        assert_eq!(tls.describe(&std::io::Error::other("reset")), None);
    }
}
