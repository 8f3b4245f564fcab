//! TLS settings of backend URLs: certificate files checked before connecting and, with the
//! `rustls` feature, the `ca`, `cert` and `key` options of a lease store's URL read as PEM
//! ([`TlsOptions`]) and handshake failures explained on one line in the URL's own vocabulary.

#[cfg(feature = "rustls")]
mod files;

#[cfg(feature = "rustls")]
pub use files::{ClientIdentity, PemCertificates, PemKey, TlsFiles, TlsOptionError, TlsOptions};

/// How a backend's URL names its TLS settings, so that an explanation says what to change.
#[derive(Debug, Clone, Copy)]
pub struct TlsVocabulary {
    /// The parameter naming the CA certificates to trust, such as `sslrootcert`.
    pub ca: &'static str,
    /// Whether the URL can turn the check of the server's host name off, and how.
    pub host_check: HostCheck,
}

/// How a backend checks that the server's certificate names the host in the URL.
#[derive(Debug, Clone, Copy)]
pub enum HostCheck {
    /// Checked only in one mode of the URL's TLS settings.
    Optional {
        /// The setting that checks the host name, as written in a URL, such as
        /// `sslmode=verify-full`.
        verify_host: &'static str,
        /// The mode that checks the CA but not the host name, such as `verify-ca`.
        verify_ca: &'static str,
    },
    /// Always checked whenever the URL asks for TLS, as by `scheme` (such as `etcds://`).
    Always {
        /// The URL scheme that turns TLS on.
        scheme: &'static str,
    },
}

/// Checks that the certificate or key file `path`, given as `parameter`, can be read; the
/// error is one line naming both.
pub fn readable(parameter: &str, path: &str) -> Result<(), String> {
    std::fs::File::open(path)
        .map(drop)
        .map_err(|err| format!("{parameter} {path:?} cannot be read: {err}"))
}

/// Checks that a client certificate (`cert`, given or not) comes with its key (`key`).
pub fn key_pair(cert: (&str, bool), key: (&str, bool)) -> Result<(), String> {
    if cert.1 == key.1 {
        return Ok(());
    }
    Err(format!("{} and {} go together: give both, or neither", cert.0, key.0))
}

#[cfg(feature = "rustls")]
impl TlsVocabulary {
    /// The handshake failure in `err` or its sources (looking inside I/O errors too), as
    /// `TLS handshake failed: …`; `None` when rustls did not refuse the handshake.
    pub fn explain(&self, err: &(dyn std::error::Error + 'static)) -> Option<String> {
        let rustls = rustls_error(err)?;
        Some(format!("TLS handshake failed: {}", self.handshake(rustls)))
    }

    fn handshake(&self, err: &rustls::Error) -> String {
        use rustls::CertificateError::{
            Expired, ExpiredContext, NotValidForName, NotValidForNameContext, UnknownIssuer,
        };
        match err {
            rustls::Error::InvalidCertificate(UnknownIssuer) => format!(
                "the server's certificate is not signed by a trusted CA (name the CA's \
                 certificate file in {})",
                self.ca
            ),
            rustls::Error::InvalidCertificate(NotValidForName | NotValidForNameContext { .. }) => {
                let check = match self.host_check {
                    HostCheck::Optional { verify_host, verify_ca } => {
                        format!("{verify_host} checks the host name, {verify_ca} does not")
                    }
                    HostCheck::Always { scheme } => format!(
                        "{scheme} always checks the host name: connect to a name or address the \
                         certificate lists"
                    ),
                };
                format!("the server's certificate is not valid for the host in the URL ({check})")
            }
            rustls::Error::InvalidCertificate(Expired | ExpiredContext { .. }) => {
                "the server's certificate has expired".to_string()
            }
            other => other.to_string(),
        }
    }
}

/// The rustls error in `err`'s chain, if there is one; an I/O error's own source skips the
/// error it wraps, so that one is looked at as well.
#[cfg(feature = "rustls")]
pub fn rustls_error<'a>(err: &'a (dyn std::error::Error + 'static)) -> Option<&'a rustls::Error> {
    let mut next = Some(err);
    while let Some(err) = next {
        if let Some(rustls) = err.downcast_ref::<rustls::Error>() {
            return Some(rustls);
        }
        let wrapped = err.downcast_ref::<std::io::Error>().and_then(|io| io.get_ref());
        if let Some(rustls) = wrapped.and_then(|inner| inner.downcast_ref::<rustls::Error>()) {
            return Some(rustls);
        }
        next = err.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_an_unreadable_file_and_half_a_key_pair() {
        let err = readable("ssl-ca", "/nonexistent/ca.pem").unwrap_err();
        assert!(err.starts_with("ssl-ca \"/nonexistent/ca.pem\" cannot be read: "), "{err}");
        let file = tempfile::NamedTempFile::new().unwrap();
        assert!(readable("ssl-ca", &file.path().display().to_string()).is_ok());
        assert_eq!(
            key_pair(("ssl-cert", false), ("ssl-key", true)).unwrap_err(),
            "ssl-cert and ssl-key go together: give both, or neither"
        );
        assert!(key_pair(("ssl-cert", true), ("ssl-key", true)).is_ok());
        assert!(key_pair(("ssl-cert", false), ("ssl-key", false)).is_ok());
    }

    #[cfg(feature = "rustls")]
    #[test]
    fn explains_a_refused_certificate_found_inside_an_io_error() {
        const NAMES: TlsVocabulary = TlsVocabulary {
            ca: "ssl-ca",
            host_check: HostCheck::Optional {
                verify_host: "ssl-mode=VERIFY_IDENTITY",
                verify_ca: "VERIFY_CA",
            },
        };
        let refused = |cause| rustls::Error::InvalidCertificate(cause);
        let io = std::io::Error::other(refused(rustls::CertificateError::UnknownIssuer));
        assert_eq!(
            NAMES.explain(&io).unwrap(),
            "TLS handshake failed: the server's certificate is not signed by a trusted CA (name \
             the CA's certificate file in ssl-ca)"
        );
        let name = refused(rustls::CertificateError::NotValidForName);
        assert_eq!(
            NAMES.explain(&name).unwrap(),
            "TLS handshake failed: the server's certificate is not valid for the host in the URL \
             (ssl-mode=VERIFY_IDENTITY checks the host name, VERIFY_CA does not)"
        );
        let expired = refused(rustls::CertificateError::Expired);
        assert!(NAMES.explain(&expired).unwrap().ends_with("has expired"));
        assert_eq!(NAMES.explain(&std::io::Error::other("reset")), None);
        let always =
            TlsVocabulary { ca: "ca=", host_check: HostCheck::Always { scheme: "etcds://" } };
        assert_eq!(
            always.explain(&name).unwrap(),
            "TLS handshake failed: the server's certificate is not valid for the host in the URL \
             (etcds:// always checks the host name: connect to a name or address the certificate \
             lists)"
        );
    }
}
