//! The Kubernetes floor: the cycle as plain Lease object writes (create, replace under the
//! `resourceVersion` just written, delete with that version as a precondition), one request
//! each, sent by the Kubernetes store's own client.
//!
//! The floor writes one object per operation; baton's acquisition reads the lease, raises the
//! namespace's token counter (another object) and writes the lease, its renewal and release
//! write the lease once each.

use std::time::Duration;

use async_trait::async_trait;
use baton::kube::KubeLeaseStore;
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, DeleteParams, PostParams, Preconditions};

use crate::lease_floor::{About, FloorLock, LeaseFloor};
use crate::lease_report::HandoverGoal;
use crate::writes::WriteCount;

/// The Kubernetes floor; the handover goal is a watch event on the release, then a read, the
/// counter's write and the lease's write.
pub(crate) const ABOUT: About = About {
    store: "Kubernetes",
    operations: "create, replace, delete",
    description: "The floor is the cycle as plain Lease writes: create, replace under the \
        resourceVersion just written, delete with it as a precondition, one request each; baton's \
        acquisition is a read and two writes (the token counter, then the lease), its renewal and \
        release one write each.",
    handover: HandoverGoal { p50: None, p99: Duration::from_millis(50) },
};

/// The namespace of a `kube://` URL.
pub(crate) struct KubeFloor {
    url: String,
}

impl KubeFloor {
    /// The floor of the namespace at `url`; connects nothing yet.
    pub(crate) fn new(url: &str) -> Self {
        KubeFloor { url: url.to_string() }
    }
}

#[async_trait]
impl LeaseFloor for KubeFloor {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    async fn open(&self, key: String) -> anyhow::Result<Box<dyn FloorLock>> {
        let store = KubeLeaseStore::connect(&self.url).await?;
        let api = Api::namespaced(store.client(), store.namespace());
        Ok(Box::new(KubeLock { api, name: key, version: None }))
    }

    async fn write_count(&self, _run: &str) -> anyhow::Result<Option<Box<dyn WriteCount>>> {
        Ok(None)
    }
}

/// The lease duration the floor writes: client-go's leader election's default, so that each
/// write carries what that elector's would.
const LEASE_DURATION_SECONDS: i32 = 15;

/// One Lease object written with compare-and-set on its `resourceVersion`.
struct KubeLock {
    api: Api<Lease>,
    name: String,
    /// The object's `resourceVersion` after the last write; `None` while it is absent.
    version: Option<String>,
}

impl KubeLock {
    fn object(&self) -> Lease {
        let now = MicroTime(Timestamp::now());
        Lease {
            metadata: ObjectMeta {
                name: Some(self.name.clone()),
                resource_version: self.version.clone(),
                ..ObjectMeta::default()
            },
            spec: Some(LeaseSpec {
                holder_identity: Some("baton-bench-floor".to_string()),
                lease_duration_seconds: Some(LEASE_DURATION_SECONDS),
                renew_time: Some(now),
                ..LeaseSpec::default()
            }),
        }
    }
}

#[async_trait]
impl FloorLock for KubeLock {
    async fn acquire(&mut self) -> anyhow::Result<()> {
        let created = self.api.create(&PostParams::default(), &self.object()).await?;
        self.version = created.metadata.resource_version;
        Ok(())
    }

    async fn renew(&mut self) -> anyhow::Result<()> {
        let replaced = self.api.replace(&self.name, &PostParams::default(), &self.object()).await?;
        self.version = replaced.metadata.resource_version;
        Ok(())
    }

    async fn release(&mut self) -> anyhow::Result<()> {
        let preconditions = Preconditions { resource_version: self.version.take(), uid: None };
        let params = DeleteParams { preconditions: Some(preconditions), ..DeleteParams::default() };
        self.api.delete(&self.name, &params).await?;
        Ok(())
    }
}
