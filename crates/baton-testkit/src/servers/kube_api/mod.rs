//! An emulated Kubernetes API server: the part a Lease-based leader elector uses (leases, with
//! watches), core/v1 events and namespaces, and discovery, over a real etcd. Objects are JSON
//! under `/registry/…` with etcd's modification revision as their `resourceVersion`, and every
//! conditional write is an etcd transaction, so etcd decides every race, as with kube-apiserver.
//! Answers follow kube-apiserver's: status codes, `Status` bodies and their wording.
//!
//! It runs on a thread and tokio runtime of its own, like a separate server process, so sync
//! and async tests use it alike. Its port serves plain HTTP, which kube's client uses
//! ([`KubeApiServer::kubeconfig`]), and TLS with a self-signed certificate, which kubectl needs
//! to send its token ([`KubeApiServer::tls_kubeconfig`]).
//!
//! Not emulated: server-side apply (its patch type answers 415), `managedFields`, field
//! validation (`fieldValidation`: unknown fields are dropped silently), `limit`/`continue`
//! paging (a LIST answers everything at once), set-based label selectors, server-side tables
//! (kubectl prints NAME and AGE), OpenAPI documents, and writes of namespaces.

mod app;
mod codec;
mod discovery;
mod event;
mod gateway;
mod gateway_watch;
mod handlers;
mod kubeconfig;
mod lease;
mod namespace;
mod object;
mod patch;
mod query;
mod reads;
mod resources;
mod response;
mod routes;
mod selectors;
mod status;
mod storage;
mod strategy;
mod time;
mod tls;
mod validation;
mod watch;
mod writes;

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;

use super::etcd::EtcdServer;
use super::http_emulation::{ServerThread, Serving, bind};
use app::App;
use event::Event;
use lease::Lease;
use namespace::Namespace;
use storage::Store;
use tls::ServerCertificate;

/// The namespaces that exist from the start, as in a new cluster.
const INITIAL_NAMESPACES: [&str; 2] = ["default", "kube-system"];

/// An emulated Kubernetes API server (leases, events, discovery) over a real etcd, on a free
/// loopback port. Dropping it stops the server and its etcd, and removes their directories.
pub struct KubeApiServer {
    app: Arc<App>,
    serving: Mutex<Option<Serving>>,
    runtime: ServerThread,
    port: u16,
    token: String,
    certificate: ServerCertificate,
    kubeconfig: PathBuf,
    tls_kubeconfig: PathBuf,
    _dir: tempfile::TempDir,
    etcd: EtcdServer,
}

impl KubeApiServer {
    /// Starts etcd, then the server, with the namespaces `default` and `kube-system`; returns
    /// once it serves. Panics if etcd cannot start.
    pub fn start() -> KubeApiServer {
        let etcd = EtcdServer::start();
        let runtime = ServerThread::start("kube-api");
        let listener = bind(&runtime, 0);
        let port = listener.local_addr().expect("a bound listener has an address").port();
        let token: String = (0..32).map(|_| fastrand::alphanumeric()).collect();
        let app =
            Arc::new(App::new(Store::new(etcd.port()), token.clone(), format!("127.0.0.1:{port}")));
        let dir =
            tempfile::Builder::new().prefix("baton-kube-api-").tempdir().unwrap_or_else(|err| {
                panic!("cannot create a directory for the kube-api server: {err}")
            });
        let certificate = ServerCertificate::generate();
        let kubeconfig = dir.path().join("kubeconfig");
        kubeconfig::write(&kubeconfig, &format!("http://127.0.0.1:{port}"), &token, None);
        let tls_kubeconfig = dir.path().join("kubeconfig-tls");
        let tls_url = format!("https://127.0.0.1:{port}");
        kubeconfig::write(&tls_kubeconfig, &tls_url, &token, Some(certificate.cert_pem()));
        let serving = Serving::start(&runtime, listener, app.clone(), Some(certificate.acceptor()));
        let server = KubeApiServer {
            app,
            serving: Mutex::new(Some(serving)),
            runtime,
            port,
            token,
            certificate,
            kubeconfig,
            tls_kubeconfig,
            _dir: dir,
            etcd,
        };
        for namespace in INITIAL_NAMESPACES {
            server.create_namespace(namespace);
        }
        server
    }

    /// The server's URL, such as `http://127.0.0.1:40123`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The loopback port, the same across restarts.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// A kubeconfig file reaching the server: cluster, user (with [`token`](Self::token)) and
    /// context all named `baton-test`, the current context, in the namespace `default`.
    pub fn kubeconfig(&self) -> PathBuf {
        self.kubeconfig.clone()
    }

    /// A kubeconfig like [`kubeconfig`](Self::kubeconfig) but reaching the same port over TLS
    /// (`https://127.0.0.1:PORT`, trusting the server's self-signed certificate): what kubectl
    /// and other client-go programs need, since they send credentials only over TLS.
    pub fn tls_kubeconfig(&self) -> PathBuf {
        self.tls_kubeconfig.clone()
    }

    /// The bearer token the server accepts; a request without it gets 401 Unauthorized.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// The etcd member keeping the objects.
    pub fn etcd(&self) -> &EtcdServer {
        &self.etcd
    }

    /// Stops serving: the port is closed and every connection dropped (watches end). The
    /// objects stay in etcd. Does nothing if the server is stopped.
    pub fn stop(&self) {
        if let Some(serving) = self.serving().take() {
            serving.stop();
        }
    }

    /// Serves again on the same port (stopping first if it serves).
    pub fn restart(&self) {
        let mut serving = self.serving();
        if let Some(running) = serving.take() {
            running.stop();
        }
        let listener = bind(&self.runtime, self.port);
        let tls = self.certificate.acceptor();
        *serving = Some(Serving::start(&self.runtime, listener, self.app.clone(), Some(tls)));
    }

    /// Compacts etcd at its current revision: a watch from an older resourceVersion gets 410
    /// Expired.
    pub fn compact(&self) {
        let app = self.app.clone();
        let compacted = self.runtime.run(async move { app.store().compact().await });
        compacted.unwrap_or_else(|err| panic!("cannot compact etcd: {err}"));
    }

    /// Creates the namespace `name` (active at once) if it does not exist. Panics if the name
    /// is not a valid namespace name.
    pub fn create_namespace(&self, name: &str) {
        let app = self.app.clone();
        let name = name.to_string();
        let created = self.runtime.run(async move {
            let create = |current: Option<&storage::Current<Namespace>>| match current {
                Some(current) => Ok(current.object.clone()),
                None => {
                    let mut namespace = Namespace::active(&name);
                    strategy::prepare_for_create(&mut namespace);
                    strategy::validate_create(&namespace)?;
                    Ok(namespace)
                }
            };
            app.store().write::<Namespace>(None, &name, false, create).await
        });
        if let Err(err) = created {
            panic!("cannot create the namespace: {err}");
        }
    }

    /// Forbids every leases request in `namespace` from now on: each answers 403 Forbidden,
    /// worded as kube-apiserver's RBAC authorizer words a denial.
    pub fn forbid_leases(&self, namespace: &str) {
        self.app.forbid_leases(namespace);
    }

    /// Applies the next replace, patch or delete of the Lease `name` and then closes the
    /// connection without answering it: a write whose outcome the client cannot know.
    pub fn lose_answer_to(&self, name: &str) {
        self.app.lose_answer_to(name);
    }

    /// The core/v1 Events stored in `namespace`, as the server would answer them.
    pub fn events(&self, namespace: &str) -> Vec<Value> {
        let app = self.app.clone();
        let namespace = namespace.to_string();
        let listed = self
            .runtime
            .run(async move { app.store().list::<Event>(Some(&namespace), None).await });
        match listed {
            Ok((events, _)) => events.iter().map(|event| event.to_value()).collect(),
            Err(err) => panic!("cannot read the events: {}", err),
        }
    }

    /// The stored Lease `name` in `namespace`, as the server would answer it.
    pub fn lease(&self, namespace: &str, name: &str) -> Option<Value> {
        let app = self.app.clone();
        let (namespace, name) = (namespace.to_string(), name.to_string());
        let read = self
            .runtime
            .run(async move { app.store().get::<Lease>(Some(&namespace), &name).await });
        match read {
            Ok(lease) => lease.map(|lease| lease.object.to_value()),
            Err(err) => panic!("cannot read the lease: {}", err),
        }
    }

    fn serving(&self) -> MutexGuard<'_, Option<Serving>> {
        self.serving.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Drop for KubeApiServer {
    fn drop(&mut self) {
        self.stop();
    }
}
