//! moto's DynamoDB emulation as a throwaway server: `moto[server]` from PyPI, in the virtual
//! environment `scripts/test` installs into `$BATON_TOOLS/moto` (by default
//! `~/.cache/baton-tools/moto`), run by a small script beside this file that creates baton's
//! table before it serves, serves one request at a time (so that conditional writes are atomic,
//! as DynamoDB's are) and, when asked, refuses every access key but one.
//!
//! It is an emulation, not DynamoDB, and it keeps nothing across a restart: after
//! [`ServerProcess::restart`] the table is there again, empty.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::process::ServerProcess;
use super::spec::ServerSpec;

/// The script that runs moto (see its docstring).
const SCRIPT: &str = include_str!("moto_server.py");
/// The moto release the suites are written against (`scripts/test` installs it).
pub const MOTO_VERSION: &str = "5.2.5";

/// A moto server holding one DynamoDB table with baton's key schema.
pub struct MotoServer {
    process: ServerProcess,
}

impl MotoServer {
    /// The table the server creates.
    pub const TABLE: &'static str = "baton-leases";
    /// The region the table is in.
    pub const REGION: &'static str = "us-east-1";
    /// The access key of the credentials file the server's URL names.
    pub const ACCESS_KEY_ID: &'static str = "AKIABATONTESTKEY0001";
    /// Its secret.
    pub const SECRET_ACCESS_KEY: &'static str = "baton-test-secret-access-key";
    /// The credentials file, in the server's directory.
    const CREDENTIALS_FILE: &'static str = "credentials";

    /// Starts moto accepting any credentials, as moto does by default.
    pub fn start() -> MotoServer {
        MotoServer::launch(false)
    }

    /// Starts moto accepting only [`MotoServer::ACCESS_KEY_ID`] with its secret, refusing
    /// every other key or secret as DynamoDB does.
    pub fn start_enforcing_credentials() -> MotoServer {
        MotoServer::launch(true)
    }

    fn launch(enforced: bool) -> MotoServer {
        let python = python();
        let spec = ServerSpec::new("moto", move |dir, port| {
            let mut command = Command::new(&python);
            command.arg(dir.join("moto_server.py"));
            command.args([&port.to_string(), MotoServer::REGION, MotoServer::TABLE]);
            if enforced {
                command.args([MotoServer::ACCESS_KEY_ID, MotoServer::SECRET_ACCESS_KEY]);
            }
            command
        })
        .prepare(|dir| {
            std::fs::write(dir.join("moto_server.py"), SCRIPT)?;
            std::fs::write(
                dir.join(MotoServer::CREDENTIALS_FILE),
                MotoServer::credentials(MotoServer::ACCESS_KEY_ID, MotoServer::SECRET_ACCESS_KEY),
            )
        });
        MotoServer { process: ServerProcess::start(spec) }
    }

    /// The `dynamodb://` URL of the table, with the credentials file of the server's access key.
    pub fn url(&self) -> String {
        self.url_at(self.port())
    }

    /// The URL of the table reached at `port` on the loopback address (a proxy's).
    pub fn url_at(&self, port: u16) -> String {
        format!(
            "dynamodb://{}?region={}&endpoint=http://127.0.0.1:{port}&credentials_file={}",
            MotoServer::TABLE,
            MotoServer::REGION,
            self.credentials_file().display()
        )
    }

    /// The endpoint URL.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port())
    }

    /// The shared credentials file holding the server's access key as the `default` profile.
    pub fn credentials_file(&self) -> PathBuf {
        self.process.dir().join(MotoServer::CREDENTIALS_FILE)
    }

    /// The loopback port; it stays the same across restarts.
    pub fn port(&self) -> u16 {
        self.process.port()
    }

    /// Makes the server apply the next write of lease `name` and answer it only after 3 s
    /// (past the store's timeout when its URL says `timeout=1s`): the answer is lost.
    pub fn lose_answer_to(&self, name: &str) {
        std::fs::write(self.process.dir().join("lose-answer"), name)
            .expect("writing the lose-answer marker");
    }

    /// The text of a shared credentials file with one `default` profile.
    pub fn credentials(access_key_id: &str, secret_access_key: &str) -> String {
        format!(
            "[default]\naws_access_key_id = {access_key_id}\naws_secret_access_key = {secret_access_key}\n"
        )
    }

    /// The server process: kill, pause, resume, restart.
    pub fn process(&self) -> &ServerProcess {
        &self.process
    }
}

/// The virtual environment's Python, or a panic saying how to install moto.
fn python() -> PathBuf {
    let tools = match std::env::var_os("BATON_TOOLS") {
        Some(tools) => PathBuf::from(tools),
        None => {
            let cache =
                std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from).unwrap_or_else(|| {
                    Path::new(&std::env::var_os("HOME").unwrap_or_default()).join(".cache")
                });
            cache.join("baton-tools")
        }
    };
    let python = tools.join("moto/bin/python");
    let installed = Command::new(&python)
        .args(["-c", &format!("import moto, sys; sys.exit(moto.__version__ != '{MOTO_VERSION}')")])
        .status()
        .is_ok_and(|status| status.success());
    if !installed {
        panic!(
            "moto {MOTO_VERSION} not found in {}: run scripts/test, which installs it, or \
             `python3 -m venv {0} && {0}/bin/pip install 'moto[server]=={MOTO_VERSION}'`",
            tools.join("moto").display()
        );
    }
    python
}
