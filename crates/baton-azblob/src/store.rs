//! The Azure blob lease store: connecting (and checking the container, key and endpoint),
//! and the [`LeaseStore`] operations.

use std::sync::Arc;

use async_trait::async_trait;
use baton_core::{
    AcquireOutcome, AcquireParams, Capabilities, Error, ErrorKind, ForceReleaseParams,
    HistoryParams, LeaderChange, Lease, LeaseChanges, LeaseName, LeaseStore, Page, ReleaseParams,
    RenewAllOutcome, RenewAllParams, RenewParams, Result, StoreTime, TtlRange,
};

use crate::client::{Client, Failure};
use crate::url::{self, CONNECTION_STRING_VARIABLE, KEY_VARIABLE};
use crate::{acquire, reads, term};

/// Leases kept as blob leases of one Azure Storage container: the service grants, renews,
/// releases and breaks them and judges their expiry on its own clock; each lease blob keeps
/// its fencing token and leader changes. See the [crate documentation](crate).
///
/// Cheap to clone: clones share the connections.
#[derive(Clone)]
pub struct AzblobLeaseStore {
    inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) client: Client,
}

impl std::fmt::Debug for AzblobLeaseStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let target = self.inner.client.target();
        f.debug_struct("AzblobLeaseStore")
            .field("account", &target.account)
            .field("container", &target.container)
            .field("endpoint", &target.endpoint.display())
            .finish_non_exhaustive()
    }
}

impl AzblobLeaseStore {
    /// Connects to `azblob://ACCOUNT/CONTAINER[?endpoint=URL&key_file=PATH&timeout=DURATION&ca=PATH]`
    /// with the account key from the `key_file`, else `AZURE_STORAGE_KEY`, else
    /// `AZURE_STORAGE_CONNECTION_STRING` (whose `BlobEndpoint` is used when the URL names no
    /// endpoint). Without either endpoint, `https://ACCOUNT.blob.core.windows.net`. An `https://`
    /// endpoint is reached over TLS, trusting the public CAs built in or the `ca` file's.
    ///
    /// Fails with one line if the URL is malformed, no key is set, the endpoint cannot be
    /// reached, its certificate is refused, or it is not a Blob service, the key is refused, or
    /// the container does not exist.
    /// It checks by reading the container's properties: nothing is written.
    pub async fn connect(url: &str) -> Result<AzblobLeaseStore> {
        let target = url::parse(url)?;
        let inner = Inner { client: Client::new(target) };
        inner
            .client
            .container_date()
            .await
            .map_err(|failure| inner.refusal(failure, "connecting"))?;
        let target = inner.client.target();
        tracing::info!(account = %target.account, container = %target.container,
                       endpoint = %target.endpoint.display(), "leases are Azure blob leases");
        Ok(AzblobLeaseStore { inner: Arc::new(inner) })
    }

    /// The container of the lease blobs.
    pub fn container(&self) -> &str {
        &self.inner.client.target().container
    }
}

impl Inner {
    /// A failure explained in terms of what to fix: the container, the key, the endpoint.
    pub(crate) fn refusal(&self, failure: Failure, what: &str) -> Error {
        let target = self.client.target();
        let (account, container, endpoint) =
            (&target.account, &target.container, target.endpoint.display());
        match failure {
            Failure::Refused { status: 404, code } if code == "ContainerNotFound" => {
                Error::invalid_input(format!(
                    "container {container} does not exist in Azure storage account {account} at {endpoint}: create it (baton creates blobs, not containers)"
                ))
            }
            // Azure says AuthenticationFailed, Azurite AuthorizationFailure.
            Failure::Refused { status: 403, code } => Error::invalid_input(format!(
                "Azure storage account {account} at {endpoint} refuses the account key ({}): check {KEY_VARIABLE} or {CONNECTION_STRING_VARIABLE}",
                if code.is_empty() { "403" } else { code.as_str() }
            )),
            Failure::Refused { status, code } if code.is_empty() => Error::invalid_input(format!(
                "{endpoint} does not answer as an Azure Blob service (HTTP {status} without an Azure error code): check the endpoint"
            )),
            Failure::Unknown(err)
                if err.kind() == ErrorKind::Unavailable
                    && !err.to_string().contains("cannot connect") =>
            {
                Error::invalid_input(format!(
                    "{endpoint} does not answer as an Azure Blob service ({err}): check the endpoint"
                ))
            }
            failure => failure.into_error(&format!("{what} ({account}/{container} at {endpoint})")),
        }
    }
}

#[async_trait]
impl LeaseStore for AzblobLeaseStore {
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

    /// The service's clock: the `Date` of its answer (whole seconds), the clock that judges
    /// every lease's expiry.
    async fn now(&self) -> Result<StoreTime> {
        self.inner
            .client
            .container_date()
            .await
            .map_err(|f| self.inner.refusal(f, "reading the service's clock"))
    }

    /// No change feed; TTLs of whole seconds from [`MIN_TTL`](crate::MIN_TTL) to
    /// [`MAX_TTL`](crate::MAX_TTL), the leases the service grants.
    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
            .with_ttls(TtlRange::in_whole_seconds(acquire::MIN_TTL, acquire::MAX_TTL))
    }

    /// `None`: the Blob service has no change feed for leases; waiters retry at their retry
    /// period.
    async fn subscribe(&self) -> Result<Option<Box<dyn LeaseChanges>>> {
        Ok(None)
    }
}
