//! TLS on the server's port, for clients that send credentials only over TLS (kubectl and every
//! client-go program): a self-signed certificate for 127.0.0.1, made at start.

use std::sync::Arc;

use rustls::ServerConfig;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::TlsAcceptor;

/// The server's certificate and what accepts TLS with it.
pub(super) struct ServerCertificate {
    cert_pem: String,
    acceptor: TlsAcceptor,
}

impl ServerCertificate {
    /// A new self-signed certificate for `127.0.0.1` and `localhost`, offering HTTP/1.1.
    pub(super) fn generate() -> ServerCertificate {
        let names = vec!["127.0.0.1".to_string(), "localhost".to_string()];
        let certified = rcgen::generate_simple_self_signed(names)
            .unwrap_or_else(|err| panic!("cannot make the kube-api certificate: {err}"));
        let key =
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(certified.signing_key.serialize_der()));
        let chain = vec![CertificateDer::from(certified.cert.der().to_vec())];
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .and_then(|builder| builder.with_no_client_auth().with_single_cert(chain, key))
            .unwrap_or_else(|err| panic!("cannot configure the kube-api TLS: {err}"));
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        ServerCertificate {
            cert_pem: certified.cert.pem(),
            acceptor: TlsAcceptor::from(Arc::new(config)),
        }
    }

    /// The certificate, PEM: what a client trusts.
    pub(super) fn cert_pem(&self) -> &str {
        &self.cert_pem
    }

    /// What accepts a TLS connection.
    pub(super) fn acceptor(&self) -> TlsAcceptor {
        self.acceptor.clone()
    }
}
