//! The DynamoDB lease store: connecting, and the [`LeaseStore`] operations.

use std::sync::Arc;

use async_trait::async_trait;
use baton_core::lease::Sightings;
use baton_core::{
    AcquireOutcome, AcquireParams, Capabilities, Error, ErrorKind, ForceReleaseParams,
    HistoryParams, LeaderChange, Lease, LeaseChanges, LeaseName, LeaseStore, Page, ReleaseParams,
    RenewAllOutcome, RenewAllParams, RenewParams, Result, StoreTime,
};

use crate::client::{Dynamo, Failure};
use crate::terms::Terms;
use crate::{acquire, connect, keys, reads, record, term, url};

/// The `aws dynamodb create-table` arguments of the key schema baton expects, for messages.
pub(crate) const KEY_SCHEMA: &str = "--attribute-definitions AttributeName=pk,AttributeType=S \
     AttributeName=sk,AttributeType=S --key-schema AttributeName=pk,KeyType=HASH \
     AttributeName=sk,KeyType=RANGE";

/// Leases kept as items of one DynamoDB table, written by conditional writes, with fencing
/// tokens from a counter item that outlives the lease items, and expiry judged by each
/// contender's own monotonic clock.
///
/// Cheap to clone: clones share the client and what this process has seen. See the
/// [crate documentation](crate) for what DynamoDB guarantees and what it cannot.
#[derive(Clone)]
pub struct DynamoDbLeaseStore {
    inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) dynamo: Dynamo,
    pub(crate) sightings: Sightings,
    pub(crate) terms: Terms,
}

impl std::fmt::Debug for DynamoDbLeaseStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DynamoDbLeaseStore")
            .field("table", &self.inner.dynamo.table)
            .field("endpoint", &self.inner.dynamo.endpoint)
            .finish_non_exhaustive()
    }
}

impl DynamoDbLeaseStore {
    /// Connects to
    /// `dynamodb://TABLE[?region=REGION&endpoint=URL&profile=NAME&credentials_file=PATH&timeout=DURATION]`
    /// with the credentials of the profile named (or of the credentials file named), else those
    /// the SDK's default chain finds (environment, shared files, web identity, container,
    /// instance); the region is the URL's, else `AWS_REGION`'s, else the profile's.
    ///
    /// Fails with one line if the URL is malformed, no region is given, the endpoint cannot be
    /// reached or is not DynamoDB, the credentials are refused, or the table does not exist or
    /// has another key schema. It checks with one strongly consistent read: nothing is written,
    /// and the table is never created.
    pub async fn connect(url: &str) -> Result<DynamoDbLeaseStore> {
        let target = url::parse(url)?;
        let dynamo = Dynamo::new(connect::settings(target).await?);
        probe(&dynamo).await?;
        tracing::info!(table = %dynamo.table, endpoint = %dynamo.endpoint, "leases are DynamoDB items");
        let inner = Inner { dynamo, sightings: Sightings::default(), terms: Terms::default() };
        Ok(DynamoDbLeaseStore { inner: Arc::new(inner) })
    }

    /// The table of the leases.
    pub fn table(&self) -> &str {
        &self.inner.dynamo.table
    }

    /// The DynamoDB client this store sends its requests with, for plain requests beside it
    /// (the benchmark's floor sends conditional writes of its own).
    pub fn client(&self) -> aws_sdk_dynamodb::Client {
        self.inner.dynamo.client.clone()
    }
}

/// Checks that the table exists with baton's key schema and the credentials may read it,
/// with one strongly consistent read of an item baton never writes.
async fn probe(dynamo: &Dynamo) -> Result<()> {
    let key = keys::counter(" ");
    let table = &dynamo.table;
    let endpoint = &dynamo.endpoint;
    match dynamo.get(key).await {
        Ok(_) => Ok(()),
        Err(Failure::MissingTable(_)) => Err(Error::invalid_input(format!(
            "table {table} does not exist in DynamoDB at {endpoint}: create it with \
             `aws dynamodb create-table --table-name {table} {KEY_SCHEMA} --billing-mode PAY_PER_REQUEST` \
             (baton does not create it)"
        ))),
        Err(Failure::Refused(err)) if err.kind() == ErrorKind::Internal => {
            Err(Error::invalid_input(format!(
                "table {table} in DynamoDB at {endpoint} does not have the key schema baton needs \
             (partition key pk and sort key sk, both strings, as `{KEY_SCHEMA}` creates): {err}"
            )))
        }
        Err(failure) => Err(Error::invalid_input(failure.into_error("").to_string())),
    }
}

#[async_trait]
impl LeaseStore for DynamoDbLeaseStore {
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

    /// This process's wall clock: DynamoDB has no clock a request can read, each holder writes
    /// its own times, and expiry is judged without comparing clocks (see [`crate`]).
    async fn now(&self) -> Result<StoreTime> {
        Ok(record::now())
    }

    /// No change notification: DynamoDB has no watch (its streams are a separate, eventually
    /// delivered service), so waiting contenders poll at their retry period.
    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
    }

    async fn subscribe(&self) -> Result<Option<Box<dyn LeaseChanges>>> {
        Ok(None)
    }
}
