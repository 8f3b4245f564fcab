//! How a throwaway PostgreSQL server is started: on IPv6 too, with TLS, demanding client
//! certificates.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use super::spec::RunAs;

/// How a [`PostgresServer`](super::PostgresServer) is started.
#[derive(Debug, Clone, Default)]
pub struct PostgresConfig {
    /// Also listen on the IPv6 loopback address `::1`; starting panics when the machine has
    /// none.
    pub ipv6: bool,
    /// Serve TLS (`ssl=on`) with this certificate.
    pub tls: Option<ServerTls>,
}

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

impl PostgresConfig {
    /// `listen_addresses`.
    pub(super) fn listen_addresses(&self) -> &'static str {
        if self.ipv6 { "127.0.0.1,::1" } else { "127.0.0.1" }
    }

    /// Writes the TLS files into the server's directory `dir`, readable by the server's user
    /// only.
    pub(super) fn write_files(&self, dir: &Path, owner: Option<RunAs>) -> std::io::Result<()> {
        let Some(tls) = &self.tls else { return Ok(()) };
        write_private(&dir.join("server.crt"), &tls.cert_pem, owner)?;
        write_private(&dir.join("server.key"), &tls.key_pem, owner)?;
        if let Some(client_ca) = &tls.client_ca_pem {
            write_private(&dir.join("client-ca.crt"), client_ca, owner)?;
            let hba = "local all all trust\n\
                       hostssl all all 127.0.0.1/32 trust clientcert=verify-ca\n\
                       hostssl all all ::1/128 trust clientcert=verify-ca\n";
            write_private(&dir.join("pg_hba.conf"), hba, owner)?;
        }
        Ok(())
    }

    /// Adds the TLS settings to the server's command line; the files are in `dir`.
    pub(super) fn tls_arguments(&self, command: &mut Command, dir: &Path) {
        let Some(tls) = &self.tls else { return };
        let setting = |name: &str, file: &str| format!("{name}={}", dir.join(file).display());
        command
            .args(["-c", "ssl=on"])
            .args(["-c", &setting("ssl_cert_file", "server.crt")])
            .args(["-c", &setting("ssl_key_file", "server.key")]);
        if tls.client_ca_pem.is_some() {
            command
                .args(["-c", &setting("ssl_ca_file", "client-ca.crt")])
                .args(["-c", &setting("hba_file", "pg_hba.conf")]);
        }
    }
}

fn write_private(path: &Path, text: &str, owner: Option<RunAs>) -> std::io::Result<()> {
    std::fs::write(path, text)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    match owner {
        Some(owner) => owner.chown(path),
        None => Ok(()),
    }
}
