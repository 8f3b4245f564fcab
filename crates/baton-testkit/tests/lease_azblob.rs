//! The lease conformance suite against Azurite (Microsoft's Azure Storage emulator), plus what
//! only the Azure blob store can get wrong: tokens across lease expiry, release, a break, the
//! deletion of the blob and a restart of the service; a claim that never got its lease; TTLs
//! the service does not grant; bad input; and HTTPS, with the CA given as `ca=` or refused.

mod tls;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use baton_azblob::{AzblobLeaseStore, BlobContainer};
use baton_core::{
    AcquireOutcome, AcquireParams, ChangeReason, ErrorKind, FencingToken, ForceReleaseParams,
    LeaseName, LeaseStore, ReleaseParams, RenewParams,
};
use baton_testkit::conformance::lease::LeaseHarness;
use baton_testkit::conformance::{acquire_granted, unique_holder, unique_name};
use baton_testkit::servers::{AzuriteServer, ServerTls};

use crate::tls::{Authority, Files};

/// One Azurite per test, with one store on it.
struct Azure {
    server: AzuriteServer,
    store: Arc<AzblobLeaseStore>,
}

impl Azure {
    async fn start() -> Azure {
        let server = AzuriteServer::start();
        let store = Arc::new(AzblobLeaseStore::connect(&server.url()).await.expect("connect"));
        Azure { server, store }
    }

    fn container(&self) -> BlobContainer {
        BlobContainer::open(&self.server.url()).unwrap()
    }
}

#[async_trait]
impl LeaseHarness for Azure {
    async fn store(&self) -> Arc<dyn LeaseStore> {
        self.store.clone()
    }

    /// Deletes the lease blob as an operator would: its lease broken first.
    async fn delete_record(&self, name: &LeaseName) {
        self.container()
            .delete(&BlobContainer::lease_blob(name))
            .await
            .expect("delete the lease blob");
    }
}

baton_testkit::lease_conformance!(Azure::start().await);

const TTL: Duration = Duration::from_secs(30);

fn release_params(lease: &baton_core::Lease) -> ReleaseParams {
    ReleaseParams {
        name: lease.name.clone(),
        holder: lease.holder.clone().unwrap(),
        token: lease.token,
    }
}

/// Acquires until granted: the lease is expected to expire within the service's longest lease.
async fn acquire_when_free(
    store: &dyn LeaseStore,
    name: &LeaseName,
    ttl: Duration,
) -> (baton_core::Lease, ChangeReason) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(70);
    loop {
        let params = AcquireParams { name: name.clone(), holder: unique_holder("w"), ttl };
        if let AcquireOutcome::Acquired { lease, reason } = store.acquire(params).await.unwrap() {
            return (lease, reason);
        }
        assert!(tokio::time::Instant::now() < deadline, "lease {name} never became free");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_rise_across_expiry_release_a_break_deletion_and_a_restart() {
    let azure = Azure::start().await;
    let store = &*azure.store;
    let name = unique_name("tokens");
    let mut tokens: Vec<FencingToken> = Vec::new();

    let (lease, _) =
        acquire_granted(store, &name, &unique_holder("a"), baton_azblob::MIN_TTL).await;
    tokens.push(lease.token);
    let (lease, reason) = acquire_when_free(store, &name, TTL).await;
    assert_eq!(reason, ChangeReason::ExpiredTakeover);
    tokens.push(lease.token);
    assert!(store.release(release_params(&lease)).await.unwrap());
    let (lease, reason) = acquire_granted(store, &name, &unique_holder("b"), TTL).await;
    assert_eq!(reason, ChangeReason::Handover);
    tokens.push(lease.token);
    store.force_release(ForceReleaseParams { name: name.clone() }).await.unwrap();
    let (lease, reason) = acquire_granted(store, &name, &unique_holder("c"), TTL).await;
    assert_eq!(reason, ChangeReason::ForcedRelease);
    tokens.push(lease.token);

    // Released before the restart: Azurite reloads a lease held across a restart as expired
    // (its saved expiry comes back as text), which Azure never does.
    assert!(store.release(release_params(&lease)).await.unwrap());
    azure.server.process().restart();
    let stored = store.get(&name).await.expect("the store reconnects after a restart").unwrap();
    assert_eq!(
        (stored.token, stored.released),
        (lease.token, Some(baton_core::ReleaseKind::Graceful))
    );
    let (lease, reason) = acquire_granted(store, &name, &unique_holder("d"), TTL).await;
    assert_eq!(reason, ChangeReason::Handover, "the record survived the restart");
    tokens.push(lease.token);

    azure.delete_record(&name).await;
    let (lease, reason) = acquire_granted(store, &name, &unique_holder("e"), TTL).await;
    assert_eq!(reason, ChangeReason::Fresh);
    tokens.push(lease.token);
    assert!(tokens.windows(2).all(|w| w[0] < w[1]), "tokens must strictly rise: {tokens:?}");
}

/// A contender's claim that landed after another's read, and never got its lease: the lease
/// cannot be taken under the ETag read before the claim, and the next grant's token is above
/// the claim's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_that_never_got_its_lease_is_superseded_by_a_higher_token() {
    let azure = Azure::start().await;
    let store = &*azure.store;
    let name = unique_name("claim");
    let (first, _) = acquire_granted(store, &name, &unique_holder("a"), TTL).await;
    assert!(store.release(release_params(&first)).await.unwrap());

    let container = azure.container();
    let blob = BlobContainer::lease_blob(&name);
    let (read_etag, metadata) = container.metadata(&blob).await.unwrap().expect("the lease blob");
    let claimed_token = first.token.get() + 1;
    let mut claim: BTreeMap<String, String> = metadata.clone();
    claim.insert("batontoken".into(), claimed_token.to_string());
    claim.insert("batonholder".into(), "rival".into());
    claim.insert("batonreason".into(), "handover".into());
    claim.insert("batonpreviousend".into(), metadata["batonreleasedat"].clone());
    claim.remove("batonacquired");
    claim.remove("batonrenewed");
    claim.remove("batonreleased");
    claim.remove("batonreleasedat");
    container.set_metadata(&blob, &claim, &read_etag).await.expect("the rival's claim");

    let lease_id = "00000000-0000-4000-8000-000000000001";
    let err = container.acquire_lease(&blob, TTL, lease_id, Some(&read_etag)).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict, "a lease under a stale ETag: {err}");
    let err = container.set_metadata(&blob, &metadata, &read_etag).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict, "a claim under a stale ETag: {err}");

    let (next, reason) = acquire_granted(store, &name, &unique_holder("b"), TTL).await;
    assert_eq!(next.token.get(), claimed_token + 1, "above the claim that never got its lease");
    assert_eq!(reason, ChangeReason::Handover, "the claim carried the release before it");
    let history = store
        .history(baton_core::HistoryParams { lease: Some(name), ..Default::default() })
        .await
        .unwrap();
    let tokens: Vec<_> = history.items.iter().map(|change| change.token).collect();
    assert_eq!(tokens, [first.token, next.token], "only granted terms are on record");
}

/// A lease blob leased by someone else without baton's record (another program's lease, or a
/// claim whose confirmation was lost): contenders are refused until the service frees it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lease_taken_outside_baton_is_respected_and_broken_by_force_release() {
    let azure = Azure::start().await;
    let store = &*azure.store;
    let name = unique_name("outside");
    let (first, _) = acquire_granted(store, &name, &unique_holder("a"), TTL).await;
    assert!(store.release(release_params(&first)).await.unwrap());
    let container = azure.container();
    let blob = BlobContainer::lease_blob(&name);
    container
        .acquire_lease(&blob, TTL, "00000000-0000-4000-8000-000000000002", None)
        .await
        .unwrap();
    let params = AcquireParams { name: name.clone(), holder: unique_holder("b"), ttl: TTL };
    assert!(matches!(store.acquire(params).await.unwrap(), AcquireOutcome::Held(_)));
    assert!(
        store.force_release(ForceReleaseParams { name: name.clone() }).await.unwrap().is_some()
    );
    let (next, reason) = acquire_granted(store, &name, &unique_holder("c"), TTL).await;
    assert_eq!(reason, ChangeReason::ForcedRelease);
    assert!(next.token > first.token);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ttls_the_service_does_not_grant_are_refused_and_change_nothing() {
    let azure = Azure::start().await;
    let store = &*azure.store;
    let name = unique_name("ttl");
    for ttl in [
        Duration::from_secs(14),
        Duration::from_secs(61),
        Duration::from_millis(20_500),
        Duration::MAX,
    ] {
        let params = AcquireParams { name: name.clone(), holder: unique_holder("a"), ttl };
        let err = store.acquire(params).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        let message = err.to_string();
        assert!(message.contains("15s to 60s") && message.contains("infinite"), "{message}");
        assert!(!message.contains('\n'));
    }
    assert_eq!(store.get(&name).await.unwrap(), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_is_refused_with_one_line() {
    let azure = Azure::start().await;
    let missing = azure.server.url_of("no-such-container");
    let err = AzblobLeaseStore::connect(&missing).await.unwrap_err();
    assert_one_line(&err, ErrorKind::InvalidInput, "container no-such-container does not exist");

    let dir = tempfile::tempdir().unwrap();
    let wrong_key = dir.path().join("wrong.key");
    std::fs::write(&wrong_key, "d3Jvbmcga2V5IGZvciB0aGUgYWNjb3VudA==").unwrap();
    let url = azure
        .server
        .url()
        .replace(&azure.server.key_file().display().to_string(), &wrong_key.display().to_string());
    let err = AzblobLeaseStore::connect(&url).await.unwrap_err();
    assert_one_line(&err, ErrorKind::InvalidInput, "refuses the account key");
    assert!(!err.to_string().contains("d3Jvbmc"), "the key is never printed: {err}");

    let not_the_service = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = not_the_service.local_addr().unwrap().port();
    let server = tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        while let Ok((mut socket, _)) = not_the_service.accept().await {
            let mut buffer = [0u8; 4096];
            let _ = socket.read(&mut buffer).await;
            let _ = socket
                .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 9\r\n\r\nnot azure")
                .await;
        }
    });
    let url = azure
        .server
        .url()
        .replace(&azure.server.endpoint(), &format!("http://127.0.0.1:{port}/devstoreaccount1"));
    let err = AzblobLeaseStore::connect(&url).await.unwrap_err();
    assert_one_line(&err, ErrorKind::InvalidInput, "does not answer as an Azure Blob service");
    server.abort();

    let err = AzblobLeaseStore::connect(
        "azblob://devstoreaccount1/baton?endpoint=http://127.0.0.1:1/x&key=c2VjcmV0",
    )
    .await
    .unwrap_err();
    assert_one_line(&err, ErrorKind::InvalidInput, "unknown parameter");
    assert!(!err.to_string().contains("c2VjcmV0"), "{err}");
}

/// Azurite serving HTTPS only, with a certificate for 127.0.0.1 that `authority` signed; the
/// store's URL trusts `authority`.
fn azurite_over_tls(authority: &Authority) -> AzuriteServer {
    let issued = authority.issue("azurite", &["127.0.0.1"]);
    let tls = ServerTls { cert_pem: issued.cert_pem, key_pem: issued.key_pem, client_ca_pem: None };
    AzuriteServer::start_tls(tls, &authority.pem())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leases_are_acquired_renewed_and_released_over_https_with_the_ca() {
    let server = azurite_over_tls(&Authority::new("baton test CA"));
    let url = server.url();
    assert!(url.contains("endpoint=https://127.0.0.1:") && url.contains("&ca="), "{url}");

    let store = AzblobLeaseStore::connect(&url).await.expect("HTTPS with the right CA");
    let (name, holder) = (unique_name("tls"), unique_holder("h"));
    let (lease, _) = acquire_granted(&store, &name, &holder, TTL).await;
    let renew = RenewParams { name: name.clone(), holder: holder.clone(), token: lease.token };
    let renewed = store.renew(renew).await.expect("renewed over HTTPS");
    assert_eq!(renewed.token, lease.token);
    assert!(store.release(release_params(&lease)).await.expect("released over HTTPS"));
    let stored = store.get(&name).await.unwrap().expect("the lease blob stays");
    assert_eq!((stored.holder, stored.token), (None, lease.token));

    let leases = baton::connect_leases(&url).await.expect("baton opens the HTTPS URL");
    let (again, _) = acquire_granted(&*leases, &name, &holder, TTL).await;
    assert!(again.token > lease.token, "{} after {}", again.token, lease.token);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_certificate_not_trusted_or_for_another_host_is_refused_with_one_line() {
    let server = azurite_over_tls(&Authority::new("baton test CA"));
    let files = Files::new();
    let stranger = files.write("stranger.pem", &Authority::new("another CA").pem());
    let base = format!(
        "azblob://{}/{}?endpoint={}&key_file={}",
        AzuriteServer::ACCOUNT,
        AzuriteServer::CONTAINER,
        server.endpoint(),
        server.key_file().display()
    );
    let untrusted = "TLS handshake failed: the server's certificate is not signed by a trusted CA \
                     (name the CA's certificate file in ca=)";
    let url = format!("{base}&ca={}", stranger.display());
    let err = AzblobLeaseStore::connect(&url).await.unwrap_err();
    assert_one_line(&err, ErrorKind::Unavailable, untrusted);
    assert!(err.to_string().contains(&format!("127.0.0.1:{}", server.port())), "{err}");
    // Without ca=, the public CAs built in are trusted, and they did not sign it either.
    let err = AzblobLeaseStore::connect(&base).await.unwrap_err();
    assert_one_line(&err, ErrorKind::Unavailable, untrusted);

    // The host name is always checked: the certificate names 127.0.0.1, not localhost.
    let trusted = server.url();
    let elsewhere = trusted.replace("https://127.0.0.1:", "https://localhost:");
    let err = AzblobLeaseStore::connect(&elsewhere).await.unwrap_err();
    assert_one_line(&err, ErrorKind::Unavailable, "not valid for the host in the URL");
}

fn assert_one_line(err: &baton_core::Error, kind: ErrorKind, expected: &str) {
    let message = err.to_string();
    assert_eq!(err.kind(), kind, "{message}");
    assert!(message.contains(expected), "{message}");
    assert!(!message.contains('\n'), "{message}");
}
