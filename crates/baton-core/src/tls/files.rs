//! The TLS options of a lease store's URL query, `ca=PATH`, `cert=PATH` and `key=PATH`, read
//! and checked as PEM before connecting, as the Redis (`rediss://`) and etcd (`etcds://`)
//! stores take them. Paths are taken as written, without percent-decoding.

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use crate::echo::quoted;

/// How a store's URL takes its TLS files, for messages: the schemes that turn TLS on and the
/// certificates trusted when no `ca` is given.
#[derive(Debug, Clone, Copy)]
pub struct TlsOptions {
    /// The schemes that turn TLS on, as a message suggests them, such as `rediss://`.
    pub schemes: &'static str,
    /// The certificates trusted without `ca`, such as `the system's`.
    pub default_roots: &'static str,
}

/// The files named by the TLS options, read and checked.
#[derive(Debug, Clone)]
pub struct TlsFiles {
    /// The certificates to trust instead of the default ones (`ca=PATH`).
    pub ca: Option<PemCertificates>,
    /// The client certificate and its key (`cert=PATH&key=PATH`).
    pub client: Option<ClientIdentity>,
}

/// A client certificate and its key.
#[derive(Debug, Clone)]
pub struct ClientIdentity {
    /// The certificate chain (`cert=PATH`).
    pub cert: PemCertificates,
    /// Its private key (`key=PATH`).
    pub key: PemKey,
}

/// A PEM file holding at least one certificate.
#[derive(Debug, Clone)]
pub struct PemCertificates {
    pem: Vec<u8>,
    certificates: Vec<CertificateDer<'static>>,
}

impl PemCertificates {
    /// The file's text as read.
    pub fn pem(&self) -> &[u8] {
        &self.pem
    }

    /// The certificates in it, in order.
    pub fn certificates(&self) -> &[CertificateDer<'static>] {
        &self.certificates
    }
}

/// A PEM file holding a private key (PKCS#8, PKCS#1 or SEC1).
pub struct PemKey {
    pem: Vec<u8>,
    key: PrivateKeyDer<'static>,
}

impl PemKey {
    /// The file's text as read.
    pub fn pem(&self) -> &[u8] {
        &self.pem
    }

    /// The first private key in it.
    pub fn key(&self) -> PrivateKeyDer<'static> {
        self.key.clone_key()
    }
}

impl Clone for PemKey {
    fn clone(&self) -> Self {
        PemKey { pem: self.pem.clone(), key: self.key.clone_key() }
    }
}

impl std::fmt::Debug for PemKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PemKey").finish_non_exhaustive()
    }
}

/// Why the TLS options of a URL were refused; each message is one line naming the option.
#[derive(Debug, thiserror::Error)]
pub enum TlsOptionError {
    /// An option other than `ca`, `cert` and `key`.
    #[error("unknown option {}: accepted are {accepted}", quoted(.option))]
    Unknown {
        /// The option as written.
        option: String,
        /// The accepted options, described.
        accepted: String,
    },
    /// A TLS option in a URL whose scheme does not ask for TLS.
    #[error("{option}= needs TLS: use {schemes}")]
    NeedsTls {
        /// The option given.
        option: &'static str,
        /// The schemes that turn TLS on.
        schemes: &'static str,
    },
    /// An option without a path.
    #[error("{option}= needs a path: accepted are {accepted}")]
    NoPath {
        /// The option given.
        option: &'static str,
        /// The accepted options, described.
        accepted: String,
    },
    /// A file that cannot be read.
    #[error("cannot read {option}={path}: {source}")]
    Unreadable {
        /// The option naming the file.
        option: &'static str,
        /// The path as given.
        path: String,
        /// Why it cannot be read.
        source: std::io::Error,
    },
    /// A certificate file without a PEM certificate (an empty file, say).
    #[error("{option}={path} holds no PEM certificate")]
    NoCertificate {
        /// The option naming the file.
        option: &'static str,
        /// The path as given.
        path: String,
    },
    /// A certificate file whose PEM is malformed.
    #[error("{option}={path} is not valid PEM: {reason}")]
    NotPem {
        /// The option naming the file.
        option: &'static str,
        /// The path as given.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A key file without a PEM private key.
    #[error("key={path} holds no PEM private key: {reason}")]
    NoKey {
        /// The path as given.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// `cert` without `key`, or the other way round.
    #[error("cert= and key= go together: give both or neither")]
    HalfPair,
}

impl TlsOptions {
    /// The accepted options, described for messages.
    pub fn accepted(&self) -> String {
        format!(
            "ca=PATH (a PEM file of the certificates to trust instead of {}), cert=PATH and \
             key=PATH (a client certificate and its key, PEM)",
            self.default_roots
        )
    }

    /// Reads the options of `query` (the URL's text after `?`, if any) and, when the URL asks
    /// for TLS (`tls`), the files they name. `None` without TLS; options without TLS, unknown
    /// options, empty paths, half a key pair and files that cannot be read or hold no PEM
    /// certificate or key are refused.
    pub fn read(&self, query: Option<&str>, tls: bool) -> Result<Option<TlsFiles>, TlsOptionError> {
        let (mut ca, mut cert, mut key) = (None, None, None);
        for pair in query.into_iter().flat_map(|query| query.split('&')) {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let (option, slot) = match name {
                "ca" => ("ca", &mut ca),
                "cert" => ("cert", &mut cert),
                "key" => ("key", &mut key),
                other => {
                    let option = other.to_string();
                    return Err(TlsOptionError::Unknown { option, accepted: self.accepted() });
                }
            };
            if !tls {
                return Err(TlsOptionError::NeedsTls { option, schemes: self.schemes });
            }
            if value.is_empty() {
                return Err(TlsOptionError::NoPath { option, accepted: self.accepted() });
            }
            *slot = Some(value);
        }
        if !tls {
            return Ok(None);
        }
        let ca = ca.map(|path| certificates("ca", path)).transpose()?;
        let client = match (cert, key) {
            (None, None) => None,
            (Some(cert), Some(key)) => {
                Some(ClientIdentity { cert: certificates("cert", cert)?, key: private_key(key)? })
            }
            _ => return Err(TlsOptionError::HalfPair),
        };
        Ok(Some(TlsFiles { ca, client }))
    }
}

fn read(option: &'static str, path: &str) -> Result<Vec<u8>, TlsOptionError> {
    std::fs::read(path).map_err(|source| TlsOptionError::Unreadable {
        option,
        path: path.to_string(),
        source,
    })
}

fn certificates(option: &'static str, path: &str) -> Result<PemCertificates, TlsOptionError> {
    let pem = read(option, path)?;
    let found =
        CertificateDer::pem_slice_iter(&pem).collect::<Result<Vec<_>, _>>().map_err(|err| {
            TlsOptionError::NotPem { option, path: path.to_string(), reason: err.to_string() }
        })?;
    if found.is_empty() {
        return Err(TlsOptionError::NoCertificate { option, path: path.to_string() });
    }
    Ok(PemCertificates { pem, certificates: found })
}

fn private_key(path: &str) -> Result<PemKey, TlsOptionError> {
    let pem = read("key", path)?;
    let key = PrivateKeyDer::from_pem_slice(&pem)
        .map_err(|err| TlsOptionError::NoKey { path: path.to_string(), reason: err.to_string() })?;
    Ok(PemKey { pem, key })
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPTIONS: TlsOptions = TlsOptions { schemes: "xs://", default_roots: "the built-in ones" };

    fn refused(query: &str, tls: bool) -> String {
        OPTIONS.read(Some(query), tls).unwrap_err().to_string()
    }

    #[test]
    fn options_need_tls_known_names_and_paths() {
        assert!(OPTIONS.read(None, false).unwrap().is_none());
        let none = OPTIONS.read(None, true).unwrap().unwrap();
        assert!(none.ca.is_none() && none.client.is_none());
        assert_eq!(refused("ca=/x.pem", false), "ca= needs TLS: use xs://");
        assert_eq!(
            refused("sslmode=require", true),
            "unknown option \"sslmode\": accepted are ca=PATH (a PEM file of the certificates to \
             trust instead of the built-in ones), cert=PATH and key=PATH (a client certificate \
             and its key, PEM)"
        );
        assert!(refused("key=", true).starts_with("key= needs a path: accepted are ca=PATH"));
        assert_eq!(
            refused("cert=/a.pem", true),
            "cert= and key= go together: give both or neither"
        );
    }

    #[test]
    fn files_are_read_and_must_hold_pem() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path.display().to_string()
        };
        let (empty, garbage) = (write("empty.pem", ""), write("garbage.pem", "not PEM"));
        assert!(refused("ca=/nonexistent/ca.pem", true).starts_with("cannot read ca=/nonexistent"));
        assert_eq!(
            refused(&format!("ca={empty}"), true),
            format!("ca={empty} holds no PEM certificate")
        );
        assert_eq!(
            refused(&format!("ca={garbage}"), true),
            format!("ca={garbage} holds no PEM certificate")
        );
        let made = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
        let cert = write("cert.pem", &made.cert.pem());
        let key = write("key.pem", &made.signing_key.serialize_pem());
        let query = format!("ca={cert}&cert={cert}&key={key}");
        let files = OPTIONS.read(Some(&query), true).unwrap().unwrap();
        assert_eq!(files.ca.unwrap().certificates().len(), 1);
        let client = files.client.unwrap();
        assert_eq!(client.cert.pem(), made.cert.pem().as_bytes());
        assert_eq!(client.key.pem(), made.signing_key.serialize_pem().as_bytes());
        let key = format!("cert={cert}&key={empty}");
        assert!(refused(&key, true).starts_with(&format!("key={empty} holds no PEM private key")));
    }
}
