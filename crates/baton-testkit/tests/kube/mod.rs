//! A Kubernetes lease store on the testkit's emulated API server (objects in a real etcd),
//! shared by the Kubernetes test files, and an elector that follows client-go's rules.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use baton_core::{LeaseName, LeaseStore};
use baton_kube::KubeLeaseStore;
use baton_testkit::conformance::lease::LeaseHarness;
use baton_testkit::servers::KubeApiServer;
use k8s_openapi::api::coordination::v1::Lease as LeaseObject;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, PostParams};
use tokio::sync::OnceCell;
use tokio::time::Instant;

/// The shortest TTL a Lease holds: `leaseDurationSeconds` is whole seconds.
pub const SHORTEST_TTL: Duration = Duration::from_secs(1);

/// One API server per test; the store connects on first use. Fields drop in order: the store
/// first, then the server.
pub struct Kube {
    store: OnceCell<KubeLeaseStore>,
    pub server: KubeApiServer,
}

impl Kube {
    /// An API server with its etcd.
    pub fn start() -> Self {
        Kube { store: OnceCell::new(), server: KubeApiServer::start() }
    }

    /// The URL of the `default` namespace through the server's kubeconfig.
    pub fn url(&self) -> String {
        url(&self.server, "default")
    }

    /// The store, connected on first use.
    pub async fn store(&self) -> &KubeLeaseStore {
        self.store
            .get_or_init(|| async { KubeLeaseStore::connect(&self.url()).await.expect("connect") })
            .await
    }

    /// A plain client of the server's Lease objects in `default`.
    pub async fn leases(&self) -> Api<LeaseObject> {
        let file = kube::config::Kubeconfig::read_from(self.server.kubeconfig()).unwrap();
        let options = kube::config::KubeConfigOptions::default();
        let config = kube::Config::from_custom_kubeconfig(file, &options).await.unwrap();
        Api::namespaced(kube::Client::try_from(config).unwrap(), "default")
    }
}

/// The URL of `namespace` on `server`, through its kubeconfig.
pub fn url(server: &KubeApiServer, namespace: &str) -> String {
    format!("kube://{namespace}?kubeconfig={}", server.kubeconfig().display())
}

#[async_trait]
impl LeaseHarness for Kube {
    async fn store(&self) -> Arc<dyn LeaseStore> {
        Arc::new(Kube::store(self).await.clone())
    }

    async fn delete_record(&self, name: &LeaseName) {
        let deleted = self.server.etcd().delete_key(&format!("/registry/leases/default/{name}"));
        assert!(deleted, "the Lease {name} is where kube-apiserver keeps it");
    }
}

/// An elector following client-go's `tryAcquireOrRenew` on the same Lease: it takes the lease
/// when the holder identity is empty, or when the record has not changed for its duration
/// since it first saw it; it writes only the spec (keeping the object's annotations, as
/// client-go updates the object it read), under the object's `resourceVersion`; it knows no
/// token.
pub struct ClientGoElector {
    api: Api<LeaseObject>,
    name: String,
    pub identity: String,
    duration_seconds: i32,
    observed: Option<(String, Instant)>,
}

impl ClientGoElector {
    /// An elector named `identity` for the Lease `name`.
    pub fn new(api: Api<LeaseObject>, name: &str, identity: &str, duration_seconds: i32) -> Self {
        ClientGoElector {
            api,
            name: name.to_string(),
            identity: identity.to_string(),
            duration_seconds,
            observed: None,
        }
    }

    /// One round: whether it holds the lease afterwards.
    pub async fn try_acquire_or_renew(&mut self) -> bool {
        let mut object = self.api.get(&self.name).await.expect("get");
        let spec = object.spec.clone().unwrap_or_default();
        let holder = spec.holder_identity.clone().unwrap_or_default();
        let raw = serde_json::to_string(&spec).unwrap();
        let now = Instant::now();
        let since = match &self.observed {
            Some((seen, since)) if *seen == raw => *since,
            _ => {
                self.observed = Some((raw, now));
                now
            }
        };
        let duration = Duration::from_secs(spec.lease_duration_seconds.unwrap_or(0) as u64);
        if !holder.is_empty() && holder != self.identity && since + duration > now {
            return false;
        }
        let stamp = MicroTime(Timestamp::now());
        let spec = object.spec.get_or_insert_with(Default::default);
        if holder != self.identity {
            spec.acquire_time = Some(stamp.clone());
            spec.lease_transitions = Some(spec.lease_transitions.unwrap_or(0) + 1);
        }
        spec.holder_identity = Some(self.identity.clone());
        spec.lease_duration_seconds = Some(self.duration_seconds);
        spec.renew_time = Some(stamp);
        match self.api.replace(&self.name, &PostParams::default(), &object).await {
            Ok(written) => {
                let raw = serde_json::to_string(&written.spec.unwrap_or_default()).unwrap();
                self.observed = Some((raw, Instant::now()));
                true
            }
            Err(kube::Error::Api(status)) if status.code == 409 => false,
            Err(err) => panic!("client-go elector: {err}"),
        }
    }
}
