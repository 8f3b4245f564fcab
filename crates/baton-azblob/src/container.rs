//! Plain requests on the container beside the lease store, with the same client: creating
//! the container, the service's lease actions on any blob, and the lease blobs' metadata.
//! Meant for setting up a container, for the benchmark's floor and for tests; leases taken
//! this way are not baton's.

use std::collections::BTreeMap;
use std::time::Duration;

use baton_core::{Error, ErrorKind, LeaseName, Result};
use bytes::Bytes;

use crate::acquire::ttl_seconds;
use crate::client::{Client, Condition, Failure, LeaseAction};
use crate::{names, url};

/// One container of an Azure Storage account, reached as `azblob://…` names it.
pub struct BlobContainer {
    client: Client,
}

impl std::fmt::Debug for BlobContainer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlobContainer").field("target", self.client.target()).finish()
    }
}

/// A failure as a plain error: `Conflict` for a refused condition or lease, `NotFound` for a
/// missing blob.
fn error(failure: Failure, what: &str) -> Error {
    match failure {
        Failure::Refused { status: 409 | 412, code } => {
            Error::new(ErrorKind::Conflict, format!("{what}: {code}"))
        }
        Failure::Refused { status: 404, code } => {
            Error::new(ErrorKind::NotFound, format!("{what}: {code}"))
        }
        failure => failure.into_error(what),
    }
}

impl BlobContainer {
    /// The container `url` names, with the key from the environment; nothing is sent.
    pub fn open(url: &str) -> Result<BlobContainer> {
        Ok(BlobContainer { client: Client::new(url::parse(url)?) })
    }

    /// The blob that keeps the lease `name`.
    pub fn lease_blob(name: &LeaseName) -> String {
        names::blob_name(name)
    }

    /// Creates the container; `false` if it existed.
    pub async fn create(&self) -> Result<bool> {
        self.client.create_container().await.map_err(|f| error(f, "creating the container"))
    }

    /// Writes an empty blob (replacing one of the name, unless it is leased).
    pub async fn put_empty(&self, blob: &str) -> Result<()> {
        let written =
            self.client.put(blob, Bytes::new(), &BTreeMap::new(), Condition::Any, None).await;
        written.map(drop).map_err(|f| error(f, "writing a blob"))
    }

    /// Deletes a blob, breaking its lease first if it has one.
    pub async fn delete(&self, blob: &str) -> Result<()> {
        match self.client.lease(blob, LeaseAction::Break, None).await {
            Ok(_) | Err(Failure::Refused { status: 409, .. }) => {}
            Err(failure) => return Err(error(failure, "breaking a blob's lease")),
        }
        self.client.delete(blob, None).await.map_err(|f| error(f, "deleting a blob"))
    }

    /// A blob's ETag and metadata; `None` if it does not exist.
    pub async fn metadata(&self, blob: &str) -> Result<Option<(String, BTreeMap<String, String>)>> {
        let read = self.client.read(blob, false).await.map_err(|f| error(f, "reading a blob"))?;
        Ok(read.map(|blob| (blob.etag, blob.metadata)))
    }

    /// Replaces a blob's metadata if its ETag is `if_match`; returns the new ETag.
    pub async fn set_metadata(
        &self,
        blob: &str,
        metadata: &BTreeMap<String, String>,
        if_match: &str,
    ) -> Result<String> {
        let written =
            self.client.set_metadata(blob, metadata, Condition::Matches(if_match), None).await;
        let written = written.map_err(|f| error(f, "writing a blob's metadata"))?;
        Ok(written.etag.unwrap_or_default())
    }

    /// Acquires the blob's lease for `ttl` (15 to 60 whole seconds) under `lease_id` (a
    /// GUID), only if the blob's ETag is `if_match` when given.
    pub async fn acquire_lease(
        &self,
        blob: &str,
        ttl: Duration,
        lease_id: &str,
        if_match: Option<&str>,
    ) -> Result<()> {
        let action = LeaseAction::Acquire { seconds: ttl_seconds(ttl)?, id: lease_id };
        self.client
            .lease(blob, action, if_match)
            .await
            .map(drop)
            .map_err(|f| error(f, "acquiring a lease"))
    }

    /// Renews the blob's lease `lease_id`.
    pub async fn renew_lease(&self, blob: &str, lease_id: &str) -> Result<()> {
        let action = LeaseAction::Renew { id: lease_id };
        self.client
            .lease(blob, action, None)
            .await
            .map(drop)
            .map_err(|f| error(f, "renewing a lease"))
    }

    /// Releases the blob's lease `lease_id`.
    pub async fn release_lease(&self, blob: &str, lease_id: &str) -> Result<()> {
        let action = LeaseAction::Release { id: lease_id };
        self.client
            .lease(blob, action, None)
            .await
            .map(drop)
            .map_err(|f| error(f, "releasing a lease"))
    }
}
