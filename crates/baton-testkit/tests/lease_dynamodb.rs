//! The lease conformance suite against moto's DynamoDB emulation, plus what only the DynamoDB
//! store can get wrong: tokens across a lease item deleted from outside and across a restart
//! that loses every item, answers lost after a write was applied, and bad input.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType,
    ScalarAttributeType,
};
use baton_core::{
    AcquireOutcome, AcquireParams, ChangeReason, ErrorKind, HistoryParams, LeaseName, LeaseStore,
    ReleaseParams, RenewParams,
};
use baton_dynamodb::DynamoDbLeaseStore;
use baton_testkit::conformance::lease::LeaseHarness;
use baton_testkit::conformance::{acquire_granted, unique_holder, unique_name};
use baton_testkit::servers::MotoServer;
use tokio::sync::OnceCell;

/// One moto server per test; the store connects on first use. Fields drop in order: the store
/// first, then the server.
struct Moto {
    store: OnceCell<DynamoDbLeaseStore>,
    server: MotoServer,
}

impl Moto {
    fn start() -> Self {
        Moto { store: OnceCell::new(), server: MotoServer::start() }
    }

    async fn store(&self) -> &DynamoDbLeaseStore {
        self.store
            .get_or_init(|| async {
                DynamoDbLeaseStore::connect(&self.server.url()).await.expect("connect")
            })
            .await
    }

    /// Deletes an item with a plain request, as someone cleaning up the table would.
    async fn delete_item(&self, pk: &str, sk: &str) {
        let client = self.store().await.client();
        client
            .delete_item()
            .table_name(MotoServer::TABLE)
            .key("pk", AttributeValue::S(pk.to_string()))
            .key("sk", AttributeValue::S(sk.to_string()))
            .condition_expression("attribute_exists(pk)")
            .send()
            .await
            .unwrap_or_else(|err| panic!("deleting item {pk}/{sk}: {err:?}"));
    }
}

#[async_trait]
impl LeaseHarness for Moto {
    async fn store(&self) -> Arc<dyn LeaseStore> {
        Arc::new(Moto::store(self).await.clone())
    }

    async fn delete_record(&self, name: &LeaseName) {
        self.delete_item("lease", name.as_str()).await;
    }
}

baton_testkit::lease_conformance!(Moto::start());

const TTL: Duration = Duration::from_secs(30);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_rise_across_a_lease_item_deleted_from_outside() {
    let harness = Moto::start();
    let store = harness.store().await;
    let name = unique_name("deleted");
    let (first, _) = acquire_granted(store, &name, &unique_holder("a"), TTL).await;
    // A counter far above any clock: only the counter can carry the next tokens above it.
    let ahead = first.token.get() + 1_000_000_000_000_000;
    store
        .client()
        .update_item()
        .table_name(MotoServer::TABLE)
        .key("pk", AttributeValue::S("token".to_string()))
        .key("sk", AttributeValue::S(name.to_string()))
        .update_expression("SET #token = :ahead")
        .expression_attribute_names("#token", "token")
        .expression_attribute_values(":ahead", AttributeValue::N(ahead.to_string()))
        .send()
        .await
        .expect("raising the counter");
    let release = ReleaseParams {
        name: name.clone(),
        holder: first.holder.clone().unwrap(),
        token: first.token,
    };
    assert!(store.release(release).await.unwrap());
    let (second, _) = acquire_granted(store, &name, &unique_holder("b"), TTL).await;
    assert!(second.token.get() > ahead, "{} after the counter's {ahead}", second.token);

    harness.delete_item("lease", name.as_str()).await;
    assert_eq!(store.get(&name).await.unwrap(), None, "the lease item is gone");
    let (third, reason) = acquire_granted(store, &name, &unique_holder("c"), TTL).await;
    assert_eq!(reason, ChangeReason::Fresh);
    assert!(third.token > second.token, "{} after {}", third.token, second.token);
    let history = store.history(HistoryParams { lease: Some(name), ..Default::default() });
    let tokens: Vec<_> = history.await.unwrap().items.iter().map(|change| change.token).collect();
    assert_eq!(tokens, [first.token, second.token, third.token], "the history outlives the item");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_rise_across_a_restart_that_loses_every_item() {
    let harness = Moto::start();
    let store = harness.store().await;
    let name = unique_name("restart");
    let (before, _) = acquire_granted(store, &name, &unique_holder("a"), TTL).await;
    harness.server.process().restart();
    assert_eq!(store.get(&name).await.unwrap(), None, "moto keeps nothing across a restart");
    // Another process, which never saw the earlier token.
    let other = DynamoDbLeaseStore::connect(&harness.server.url()).await.unwrap();
    let (after, reason) = acquire_granted(&other, &name, &unique_holder("b"), TTL).await;
    assert_eq!(reason, ChangeReason::Fresh);
    assert!(after.token > before.token, "{} after {}", after.token, before.token);
    let renewal = RenewParams { name, holder: before.holder.unwrap(), token: before.token };
    assert_eq!(store.renew(renewal).await.unwrap_err().kind(), ErrorKind::LeaseLost);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_whose_answers_are_lost_are_resolved_by_reading_back_not_sent_again() {
    let harness = Moto::start();
    let url = format!("{}&timeout=1s", harness.server.url());
    let store = DynamoDbLeaseStore::connect(&url).await.unwrap();
    let (name, holder) = (unique_name("ambiguous"), unique_holder("h"));
    let (first, _) = acquire_granted(&store, &name, &unique_holder("first"), TTL).await;
    let release = ReleaseParams {
        name: name.clone(),
        holder: first.holder.clone().unwrap(),
        token: first.token,
    };
    assert!(store.release(release).await.unwrap());

    // The grant is applied and its answer lost: sent again, its conditions would fail.
    harness.server.lose_answer_to(name.as_str());
    let params = AcquireParams { name: name.clone(), holder: holder.clone(), ttl: TTL };
    let lease = match store.acquire(params).await.expect("resolved by a read") {
        AcquireOutcome::Acquired { lease, .. } => lease,
        other => panic!("the applied grant was not recognised: {other:?}"),
    };
    assert!(lease.token > first.token);

    // The same for a renewal, and for a release.
    harness.server.lose_answer_to(name.as_str());
    let renewal = RenewParams { name: name.clone(), holder: holder.clone(), token: lease.token };
    let renewed = store.renew(renewal).await.expect("resolved by a read");
    assert!(renewed.renewed_at > lease.renewed_at);
    let stored = store.get(&name).await.unwrap().unwrap();
    assert_eq!((stored.renewed_at, stored.token), (renewed.renewed_at, lease.token));
    harness.server.lose_answer_to(name.as_str());
    let release = ReleaseParams { name: name.clone(), holder, token: lease.token };
    assert!(store.release(release).await.expect("resolved by a read"));
    assert_eq!(store.get(&name).await.unwrap().unwrap().holder, None);

    let history = store.history(HistoryParams { lease: Some(name), ..Default::default() });
    let tokens: Vec<_> = history.await.unwrap().items.iter().map(|change| change.token).collect();
    assert_eq!(tokens, [first.token, lease.token], "each grant written once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_history_keeps_the_latest_changes_of_a_lease() {
    let harness = Moto::start();
    let store = harness.store().await;
    let name = unique_name("bounded");
    let grants = baton_dynamodb::HISTORY_LENGTH + 3;
    let mut tokens = Vec::new();
    for _ in 0..grants {
        let (lease, _) = acquire_granted(store, &name, &unique_holder("h"), TTL).await;
        tokens.push(lease.token);
        let holder = lease.holder.clone().unwrap();
        let release = ReleaseParams { name: name.clone(), holder, token: lease.token };
        assert!(store.release(release).await.unwrap());
    }
    let params = HistoryParams { lease: Some(name), after: None, limit: 1000 };
    let kept: Vec<_> = store.history(params).await.unwrap().items.iter().map(|c| c.token).collect();
    assert_eq!(kept, tokens[3..], "the oldest changes give way, in order");
}

/// A loopback HTTP server that answers every request with a web page: not DynamoDB.
fn web_page_server() -> u16 {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut request = [0; 4096];
            let _ = stream.read(&mut request);
            let page = "<html><body>It works!</body></html>";
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                page.len()
            );
        }
    });
    port
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_fails_in_one_line_and_writes_nothing() {
    let harness = Moto::start();
    let store = harness.store().await;
    let wrong_schema = "wrong-schema";
    store
        .client()
        .create_table()
        .table_name(wrong_schema)
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("id")
                .attribute_type(ScalarAttributeType::S)
                .build()
                .unwrap(),
        )
        .key_schema(
            KeySchemaElement::builder()
                .attribute_name("id")
                .key_type(KeyType::Hash)
                .build()
                .unwrap(),
        )
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .expect("a table with another key schema");
    let unused = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let good = harness.server.url();
    for (url, expected) in [
        (good.replace(MotoServer::TABLE, "absent-table"), "table absent-table does not exist"),
        (good.replace(MotoServer::TABLE, wrong_schema), "does not have the key schema"),
        (harness.server.url_at(unused), "cannot reach DynamoDB"),
        (harness.server.url_at(web_page_server()), "does not answer as DynamoDB does"),
        (format!("{good}&region"), "parameter region needs a value"),
        (format!("{good}&aws_secret_access_key=hunter2"), "unknown parameter"),
    ] {
        let err = DynamoDbLeaseStore::connect(&url).await.expect_err(&url);
        let text = err.to_string();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{url}: {text}");
        assert!(text.contains(expected), "{url}: {text}");
        assert!(!text.contains('\n') && !text.contains("hunter2"), "{text}");
    }
    assert!(store.list().await.unwrap().is_empty(), "nothing was written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_credentials_fail_in_one_line_without_the_secret() {
    let server = MotoServer::start_enforcing_credentials();
    let store = DynamoDbLeaseStore::connect(&server.url()).await.expect("the server's own key");
    let dir = tempfile::tempdir().unwrap();
    for (name, key, secret) in [
        ("wrong-secret", MotoServer::ACCESS_KEY_ID, "not-the-secret"),
        ("unknown-key", "AKIAUNKNOWNKEY000000", "not-the-secret"),
    ] {
        let file = dir.path().join(name);
        std::fs::write(&file, MotoServer::credentials(key, secret)).unwrap();
        let url = server
            .url()
            .replace(&server.credentials_file().display().to_string(), &file.display().to_string());
        let err = DynamoDbLeaseStore::connect(&url).await.expect_err(name);
        let text = err.to_string();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{name}: {text}");
        assert!(text.contains("refused the credentials"), "{name}: {text}");
        assert!(!text.contains('\n') && !text.contains("not-the-secret"), "{text}");
    }
    assert!(store.list().await.unwrap().is_empty(), "nothing was written");
}
