//! How a throwaway MariaDB server is started: with TLS, demanding client certificates, with the
//! performance schema on.

use std::path::Path;
use std::process::Command;

use super::tls::ServerTls;

/// How a [`MariadbServer`](super::MariadbServer) is started.
#[derive(Debug, Clone, Default)]
pub struct MariadbConfig {
    /// Serve TLS with this certificate; with a client CA, `root` must connect over TCP with TLS
    /// and a certificate signed by it (`REQUIRE X509`).
    pub tls: Option<ServerTls>,
    /// Turn the performance schema on, so that a test can see each connection's transport
    /// (`performance_schema.threads.CONNECTION_TYPE`: `SSL/TLS`, `TCP/IP` or `Socket`).
    pub performance_schema: bool,
}

impl MariadbConfig {
    /// Adds the settings to the server's command line; the TLS files are in `dir`.
    pub(super) fn arguments(&self, command: &mut Command, dir: &Path) {
        if self.performance_schema {
            command.arg("--performance-schema=ON");
        }
        let Some(tls) = &self.tls else { return };
        let option = |name: &str, file: &str| format!("--{name}={}", dir.join(file).display());
        command.arg(option("ssl-cert", ServerTls::CERT)).arg(option("ssl-key", ServerTls::KEY));
        if tls.client_ca_pem.is_some() {
            command.arg(option("ssl-ca", ServerTls::CLIENT_CA));
        }
    }

    /// The statements the server runs at every start, after creating `database`.
    pub(super) fn init_sql(&self, database: &str) -> String {
        let mut sql = format!("CREATE DATABASE IF NOT EXISTS {database};\n");
        if self.tls.as_ref().is_some_and(|tls| tls.client_ca_pem.is_some()) {
            sql.push_str("ALTER USER 'root'@'127.0.0.1' REQUIRE X509;\n");
        }
        sql
    }
}
