//! The DynamoDB floor: the cycle as plain conditional writes on one item (a `PutItem` if the
//! item is absent, an `UpdateItem` if this client holds it, a `DeleteItem` if it still does),
//! one request each, sent by the DynamoDB store's own client to the store's own table.
//!
//! The floor writes one item per operation; baton's acquisition reads the lease and its token
//! counter and writes a transaction of three items (the lease, the counter, the leader change),
//! its renewal and release one conditional update each.

use std::time::Duration;

use async_trait::async_trait;
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use baton::dynamodb::DynamoDbLeaseStore;

use crate::lease_floor::{About, FloorLock, LeaseFloor};
use crate::lease_report::HandoverGoal;
use crate::writes::WriteCount;

/// The DynamoDB floor; with no change notification, a handover waits for the contender's next
/// try, within the retry period (1 s, ± 20 %) and a round trip.
pub(crate) const ABOUT: About = About {
    store: "DynamoDB",
    operations: "put, update, delete",
    description: "The floor is the cycle as plain conditional writes on one item: PutItem if \
        absent, UpdateItem if held by this client, DeleteItem if still held, one request each; \
        baton's acquisition is two consistent reads and a transaction of three items (the \
        lease, its token counter, the leader change), its renewal and release one conditional \
        UpdateItem each.",
    handover: HandoverGoal { p50: None, p99: Duration::from_millis(1_300) },
};

/// The partition of the floor's items, apart from baton's.
const PARTITION: &str = "bench-floor";
/// The holder the floor writes.
const HOLDER: &str = "baton-bench-floor";

/// The table of a `dynamodb://` URL.
pub(crate) struct DynamoDbFloor {
    url: String,
}

impl DynamoDbFloor {
    /// The floor of the table at `url`; connects nothing yet.
    pub(crate) fn new(url: &str) -> Self {
        DynamoDbFloor { url: url.to_string() }
    }
}

#[async_trait]
impl LeaseFloor for DynamoDbFloor {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    async fn open(&self, key: String) -> anyhow::Result<Box<dyn FloorLock>> {
        let store = DynamoDbLeaseStore::connect(&self.url).await?;
        Ok(Box::new(DynamoDbLock { client: store.client(), table: store.table().to_string(), key }))
    }

    async fn write_count(&self, _run: &str) -> anyhow::Result<Option<Box<dyn WriteCount>>> {
        Ok(None)
    }
}

/// One item written with conditions on its holder.
struct DynamoDbLock {
    client: Client,
    table: String,
    key: String,
}

impl DynamoDbLock {
    fn s(text: &str) -> AttributeValue {
        AttributeValue::S(text.to_string())
    }

    fn now() -> AttributeValue {
        let since_epoch = std::time::UNIX_EPOCH.elapsed().unwrap_or_default();
        AttributeValue::N(since_epoch.as_millis().to_string())
    }
}

#[async_trait]
impl FloorLock for DynamoDbLock {
    async fn acquire(&mut self) -> anyhow::Result<()> {
        self.client
            .put_item()
            .table_name(&self.table)
            .item("pk", Self::s(PARTITION))
            .item("sk", Self::s(&self.key))
            .item("holder", Self::s(HOLDER))
            .item("renewed_at", Self::now())
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await?;
        Ok(())
    }

    async fn renew(&mut self) -> anyhow::Result<()> {
        self.client
            .update_item()
            .table_name(&self.table)
            .key("pk", Self::s(PARTITION))
            .key("sk", Self::s(&self.key))
            .update_expression("SET renewed_at = :now")
            .condition_expression("holder = :holder")
            .expression_attribute_values(":now", Self::now())
            .expression_attribute_values(":holder", Self::s(HOLDER))
            .send()
            .await?;
        Ok(())
    }

    async fn release(&mut self) -> anyhow::Result<()> {
        self.client
            .delete_item()
            .table_name(&self.table)
            .key("pk", Self::s(PARTITION))
            .key("sk", Self::s(&self.key))
            .condition_expression("holder = :holder")
            .expression_attribute_values(":holder", Self::s(HOLDER))
            .send()
            .await?;
        Ok(())
    }
}
