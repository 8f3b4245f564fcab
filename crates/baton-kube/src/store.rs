//! The Kubernetes lease store: connecting, and the [`LeaseStore`] operations.

use std::sync::Arc;

use async_trait::async_trait;
use baton_core::{
    AcquireOutcome, AcquireParams, Capabilities, Error, ForceReleaseParams, HistoryParams,
    LeaderChange, Lease, LeaseChanges, LeaseName, LeaseStore, Page, ReleaseParams, RenewAllOutcome,
    RenewAllParams, RenewParams, Result, StoreTime,
};
use k8s_openapi::api::coordination::v1::Lease as LeaseObject;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::config::{KubeConfigOptions, Kubeconfig};

use crate::changes::Feed;
use crate::client::{Failure, Kube};
use crate::events::Reported;
use crate::names::TOKENS_OBJECT;
use crate::terms::Terms;
use crate::tokens::Tokens;
use crate::url::{self, Target};
use crate::{acquire, reads, record, term};
use baton_core::lease::Sightings;

/// Leases kept as `coordination.k8s.io/v1` Lease objects of one namespace, written as
/// client-go writes them, with a fencing token in an annotation raised from a counter that
/// outlives them, expiry judged by each contender's own monotonic clock, and a watch for
/// handover.
///
/// Cheap to clone: clones share the client and what this process has seen. See the
/// [crate documentation](crate) for what Kubernetes guarantees and what it cannot.
#[derive(Clone)]
pub struct KubeLeaseStore {
    inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) kube: Kube,
    pub(crate) tokens: Tokens,
    pub(crate) sightings: Arc<Sightings>,
    pub(crate) terms: Terms,
    pub(crate) events_reported: Reported,
    feed: Feed,
}

impl std::fmt::Debug for KubeLeaseStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KubeLeaseStore")
            .field("server", &self.inner.kube.server)
            .field("namespace", &self.inner.kube.namespace)
            .finish_non_exhaustive()
    }
}

impl KubeLeaseStore {
    /// Connects to `kube://[NAMESPACE][?kubeconfig=PATH&context=NAME&timeout=DURATION]` with
    /// the credentials kube finds (the kubeconfig named, else `KUBECONFIG` or
    /// `~/.kube/config`, else the in-cluster service account); without a namespace, the
    /// credentials' own.
    ///
    /// Fails with one line if the URL is malformed, no credentials are found, the API server
    /// cannot be reached or refuses them, the namespace does not exist, or the credentials may
    /// not create leases there. It checks by creating the token counter with `dryRun=All`:
    /// nothing is written.
    pub async fn connect(url: &str) -> Result<KubeLeaseStore> {
        let target = url::parse(url)?;
        let mut config = config(&target).await?;
        // A request is never sent again on its own: a lost answer is resolved by a read.
        config.default_retry = false;
        let server = config.cluster_url.to_string().trim_end_matches('/').to_string();
        let namespace =
            target.namespace.clone().unwrap_or_else(|| config.default_namespace.clone());
        let client = kube::Client::try_from(config).map_err(|err| {
            Error::invalid_input(format!(
                "cannot use the Kubernetes credentials for {server}: {}",
                one_line(&err)
            ))
        })?;
        let kube = Kube::new(client, namespace, server, target.timeout);
        probe(&kube).await?;
        tracing::info!(server = %kube.server, namespace = %kube.namespace, "leases are Lease objects");
        let inner = Inner {
            kube,
            tokens: Tokens::default(),
            sightings: Arc::default(),
            terms: Terms::default(),
            events_reported: Reported::default(),
            feed: Feed::default(),
        };
        Ok(KubeLeaseStore { inner: Arc::new(inner) })
    }

    /// The namespace of the leases.
    pub fn namespace(&self) -> &str {
        &self.inner.kube.namespace
    }

    /// The Kubernetes client this store sends its requests with, for plain requests beside
    /// it (the benchmark's floor sends Lease writes of its own).
    pub fn client(&self) -> kube::Client {
        self.inner.kube.client.clone()
    }
}

fn one_line(err: &impl std::fmt::Display) -> String {
    baton_core::url::single_line(&err.to_string())
}

/// The client configuration the target names.
async fn config(target: &Target) -> Result<kube::Config> {
    let options =
        KubeConfigOptions { context: target.context.clone(), ..KubeConfigOptions::default() };
    match (&target.kubeconfig, &target.context) {
        (Some(path), _) => {
            let file = Kubeconfig::read_from(path).map_err(|err| {
                Error::invalid_input(format!("cannot read the kubeconfig {}: {}", path.display(), one_line(&err)))
            })?;
            kube::Config::from_custom_kubeconfig(file, &options).await.map_err(|err| {
                Error::invalid_input(format!("cannot use the kubeconfig {}: {}", path.display(), one_line(&err)))
            })
        }
        (None, Some(context)) => kube::Config::from_kubeconfig(&options).await.map_err(|err| {
            Error::invalid_input(format!("cannot use kubeconfig context {context}: {}", one_line(&err)))
        }),
        (None, None) => kube::Config::infer().await.map_err(|err| {
            Error::invalid_input(format!(
                "no Kubernetes credentials: not in a cluster (no service account) and no kubeconfig \
                 (KUBECONFIG, ~/.kube/config, or ?kubeconfig=PATH in the URL): {}",
                one_line(&err)
            ))
        }),
    }
}

/// Checks that the namespace exists and leases may be created in it, writing nothing.
async fn probe(kube: &Kube) -> Result<()> {
    let counter = LeaseObject {
        metadata: ObjectMeta {
            name: Some(TOKENS_OBJECT.to_string()),
            namespace: Some(kube.namespace.clone()),
            ..ObjectMeta::default()
        },
        spec: None,
    };
    match kube.create_dry_run(&counter).await {
        Ok(_) | Err(Failure::Conflict) => Ok(()),
        Err(Failure::NotFound(message)) if message.contains("namespace") => {
            Err(Error::invalid_input(format!(
                "namespace {} does not exist on the Kubernetes API server at {}: create it, or name another in kube://NAMESPACE",
                kube.namespace, kube.server
            )))
        }
        Err(Failure::NotFound(message)) => Err(Error::invalid_input(format!(
            "{} does not serve coordination.k8s.io/v1 leases ({message}): is it a Kubernetes API server?",
            kube.server
        ))),
        Err(Failure::Refused(err) | Failure::Unknown(err)) => Err(err),
    }
}

#[async_trait]
impl LeaseStore for KubeLeaseStore {
    async fn acquire(&self, params: AcquireParams) -> Result<AcquireOutcome> {
        acquire::acquire(&self.inner, params).await
    }

    async fn renew(&self, params: RenewParams) -> Result<Lease> {
        term::renew(&self.inner, params).await
    }

    async fn renew_all(&self, params: RenewAllParams) -> Result<RenewAllOutcome> {
        term::renew_all(&self.inner, params).await
    }

    async fn release(&self, params: ReleaseParams) -> Result<bool> {
        term::release(&self.inner, params).await
    }

    async fn force_release(&self, params: ForceReleaseParams) -> Result<Option<Lease>> {
        term::force_release(&self.inner, params).await
    }

    async fn get(&self, name: &LeaseName) -> Result<Option<Lease>> {
        reads::get(&self.inner, name).await
    }

    async fn list(&self) -> Result<Vec<Lease>> {
        reads::list(&self.inner).await
    }

    async fn history(&self, params: HistoryParams) -> Result<Page<LeaderChange>> {
        reads::history(&self.inner, params).await
    }

    /// This process's wall clock: Kubernetes keeps no clock for leases, each holder writes its
    /// own times, and expiry is judged without comparing clocks (see [`crate`]).
    async fn now(&self) -> Result<StoreTime> {
        Ok(record::now())
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::default().with_change_notification(true).with_ttls(acquire::TTLS)
    }

    async fn subscribe(&self) -> Result<Option<Box<dyn LeaseChanges>>> {
        let feed = self.inner.feed.subscribe(&self.inner.kube, &self.inner.sightings).await?;
        Ok(Some(feed))
    }
}
