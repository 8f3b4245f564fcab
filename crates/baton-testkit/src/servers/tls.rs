//! A throwaway server's TLS: its certificate and key, and the CA its clients' certificates must
//! be signed by, written into the server's directory.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::spec::RunAs;

/// A server's TLS: its certificate and key, and the CA its clients' certificates must be signed
/// by when it demands them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerTls {
    /// The server's certificate chain, PEM.
    pub cert_pem: String,
    /// The server's private key, PEM.
    pub key_pem: String,
    /// When set, every TCP client must use TLS and present a certificate signed by this CA
    /// (PEM); without it, TLS is offered and clients may also connect without.
    pub client_ca_pem: Option<String>,
}

impl ServerTls {
    /// The certificate's file name in the server's directory.
    pub(super) const CERT: &str = "server.crt";
    /// The key's file name in the server's directory.
    pub(super) const KEY: &str = "server.key";
    /// The client CA's file name in the server's directory.
    pub(super) const CLIENT_CA: &str = "client-ca.crt";

    /// Writes the files into the server's directory `dir`, readable by the server's user
    /// (`owner`, or this process's) only.
    pub(super) fn write_files(&self, dir: &Path, owner: Option<RunAs>) -> std::io::Result<()> {
        write_private(&dir.join(Self::CERT), &self.cert_pem, owner)?;
        write_private(&dir.join(Self::KEY), &self.key_pem, owner)?;
        match &self.client_ca_pem {
            Some(client_ca) => write_private(&dir.join(Self::CLIENT_CA), client_ca, owner),
            None => Ok(()),
        }
    }
}

/// Writes `text` to `path`, readable by `owner` (or this process's user) only.
pub(super) fn write_private(path: &Path, text: &str, owner: Option<RunAs>) -> std::io::Result<()> {
    std::fs::write(path, text)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    match owner {
        Some(owner) => owner.chown(path),
        None => Ok(()),
    }
}
