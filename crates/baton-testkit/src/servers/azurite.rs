//! Azurite, Microsoft's Azure Storage emulator, as a throwaway Blob service: npm `azurite`
//! 3.35.0 (the newest release that runs on Node.js 20), which `scripts/test` installs into
//! `$BATON_TOOLS/azurite` (by default `~/.cache/baton-tools/azurite`). It listens on a free
//! loopback port, keeps its data in its own directory (so a restart keeps every blob and
//! lease: a graceful stop saves them) and serves the well-known development account, whose key
//! it writes to a file the store's URL names. Starting creates the container [`CONTAINER`].
//! [`AzuriteServer::start_tls`] serves HTTPS instead, with a certificate made for the test.
//!
//! [`CONTAINER`]: AzuriteServer::CONTAINER

use std::path::{Path, PathBuf};
use std::process::Command;

use super::process::ServerProcess;
use super::spec::ServerSpec;
use super::tls::{ServerTls, write_private};

/// The Azurite release the suites are written against (`scripts/test` installs it).
pub const AZURITE_VERSION: &str = "3.35.0";

/// An Azurite Blob service with one container.
pub struct AzuriteServer {
    process: ServerProcess,
    /// Whether it serves HTTPS.
    tls: bool,
}

/// Creations of a container tried while Azurite may not serve yet, before the last.
const CREATE_ATTEMPTS: usize = 20;

impl AzuriteServer {
    /// The development account every Azurite serves.
    pub const ACCOUNT: &'static str = "devstoreaccount1";
    /// Its published key.
    pub const KEY: &'static str =
        "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
    /// The container created at start.
    pub const CONTAINER: &'static str = "baton";
    /// The file holding the key, in the server's directory.
    const KEY_FILE: &'static str = "account.key";
    /// The file holding the CA the store's URL trusts (`ca=`), in the server's directory.
    const CA_FILE: &'static str = "ca.crt";

    /// Starts Azurite's Blob service and creates [`AzuriteServer::CONTAINER`]. Panics, saying
    /// what to install, if Azurite is missing.
    pub fn start() -> AzuriteServer {
        AzuriteServer::launch(None)
    }

    /// Starts Azurite serving HTTPS only, with the certificate and key of `tls` (Azurite asks
    /// for no client certificate, so `tls.client_ca_pem` must be `None`), and creates
    /// [`AzuriteServer::CONTAINER`]; the store's URL trusts `ca_pem` (`ca=`), which should have
    /// signed the certificate.
    pub fn start_tls(tls: ServerTls, ca_pem: &str) -> AzuriteServer {
        assert!(tls.client_ca_pem.is_none(), "Azurite does not check client certificates");
        AzuriteServer::launch(Some((tls, ca_pem.to_string())))
    }

    fn launch(tls: Option<(ServerTls, String)>) -> AzuriteServer {
        let binary = binary();
        let https = tls.is_some();
        let spec = ServerSpec::new("azurite", move |dir, port| {
            let mut command = Command::new(&binary);
            command
                .args(["--blobHost", "127.0.0.1", "--blobPort", &port.to_string()])
                .arg("--location")
                .arg(dir.join("data"))
                .args(["--skipApiVersionCheck", "--disableTelemetry", "--disableProductStyleUrl"])
                .arg("--silent");
            if https {
                command.arg("--cert").arg(dir.join(ServerTls::CERT));
                command.arg("--key").arg(dir.join(ServerTls::KEY));
            }
            command
        })
        .prepare(move |dir| {
            std::fs::create_dir_all(dir.join("data"))?;
            std::fs::write(dir.join(AzuriteServer::KEY_FILE), AzuriteServer::KEY)?;
            match tls {
                Some((tls, ca_pem)) => {
                    tls.write_files(dir, None)?;
                    write_private(&dir.join(AzuriteServer::CA_FILE), &ca_pem, None)
                }
                None => Ok(()),
            }
        });
        let server = AzuriteServer { process: ServerProcess::start(spec), tls: https };
        server.create_container(AzuriteServer::CONTAINER);
        server
    }

    /// Creates a container of the development account (on a thread of its own, so that a
    /// test's runtime is not blocked in place).
    pub fn create_container(&self, container: &str) {
        let url = self.url_of(container);
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
            runtime.block_on(async {
                let blobs = baton::azblob::BlobContainer::open(&url)?;
                // Azurite accepts connections a little before it serves them: a creation
                // whose answer was lost is sent again (a second one answers "exists").
                for _ in 0..CREATE_ATTEMPTS {
                    match blobs.create().await {
                        Err(err) if err.kind().outcome_unknown() => {
                            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                        }
                        created => return created.map(drop),
                    }
                }
                blobs.create().await.map(drop)
            })?;
            Ok::<_, anyhow::Error>(())
        })
        .join()
        .expect("the thread creating a container")
        .unwrap_or_else(|err| panic!("creating container {container} on Azurite: {err}"));
    }

    /// The store's URL for [`AzuriteServer::CONTAINER`], with the endpoint and the key file.
    pub fn url(&self) -> String {
        self.url_of(AzuriteServer::CONTAINER)
    }

    /// The store's URL for `container`; over HTTPS, trusting the CA given at start (`ca=`).
    pub fn url_of(&self, container: &str) -> String {
        let url = format!(
            "azblob://{}/{container}?endpoint={}&key_file={}",
            AzuriteServer::ACCOUNT,
            self.endpoint(),
            self.key_file().display()
        );
        match self.tls {
            true => {
                format!("{url}&ca={}", self.process.dir().join(AzuriteServer::CA_FILE).display())
            }
            false => url,
        }
    }

    /// The account's blob endpoint, such as `http://127.0.0.1:40123/devstoreaccount1`
    /// (`https://` when serving HTTPS).
    pub fn endpoint(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://127.0.0.1:{}/{}", self.port(), AzuriteServer::ACCOUNT)
    }

    /// The file holding the account key.
    pub fn key_file(&self) -> PathBuf {
        self.process.dir().join(AzuriteServer::KEY_FILE)
    }

    /// The loopback port, the same across restarts.
    pub fn port(&self) -> u16 {
        self.process.port()
    }

    /// The server process: kill, pause, resume or restart it there. A restart keeps the data
    /// (Azurite saves it on a graceful stop; a kill loses what it saved in its last seconds).
    pub fn process(&self) -> &ServerProcess {
        &self.process
    }
}

/// `azurite-blob` in `$BATON_TOOLS/azurite`; panics saying how to install it when missing.
fn binary() -> PathBuf {
    let tools = std::env::var_os("BATON_TOOLS").map(PathBuf::from).unwrap_or_else(|| {
        let cache = std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from).unwrap_or_else(|| {
            Path::new(&std::env::var_os("HOME").unwrap_or_default()).join(".cache")
        });
        cache.join("baton-tools")
    });
    let binary = tools.join("azurite/node_modules/.bin/azurite-blob");
    if !binary.exists() {
        panic!(
            "Azurite not found at {}: run scripts/test, which installs azurite {AZURITE_VERSION} with npm \
             into $BATON_TOOLS/azurite (Node.js 20 or later required)",
            binary.display()
        );
    }
    binary
}
