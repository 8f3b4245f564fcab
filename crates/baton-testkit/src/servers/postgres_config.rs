//! How a throwaway PostgreSQL server is started: on IPv6 too, with TLS, demanding client
//! certificates.

use std::path::Path;
use std::process::Command;

use super::spec::RunAs;
use super::tls::{ServerTls, write_private};

/// How a [`PostgresServer`](super::PostgresServer) is started.
#[derive(Debug, Clone, Default)]
pub struct PostgresConfig {
    /// Also listen on the IPv6 loopback address `::1`; starting panics when the machine has
    /// none.
    pub ipv6: bool,
    /// Serve TLS (`ssl=on`) with this certificate.
    pub tls: Option<ServerTls>,
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
        tls.write_files(dir, owner)?;
        if tls.client_ca_pem.is_some() {
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
            .args(["-c", &setting("ssl_cert_file", ServerTls::CERT)])
            .args(["-c", &setting("ssl_key_file", ServerTls::KEY)]);
        if tls.client_ca_pem.is_some() {
            command
                .args(["-c", &setting("ssl_ca_file", ServerTls::CLIENT_CA)])
                .args(["-c", &setting("hba_file", "pg_hba.conf")]);
        }
    }
}
