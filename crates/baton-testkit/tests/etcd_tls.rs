//! The etcd lease store over TLS (`etcds://`), against a throwaway member serving its clients
//! TLS only with certificates made here: leases with the CA given as `ca=`, server certificates
//! refused for their CA or their host, client certificates the member demands, and the plain
//! and TLS schemes pointed at the wrong kind of member.

mod tls;

use std::path::Path;
use std::time::Duration;

use baton_core::{ErrorKind, LeaseStore, ReleaseParams, RenewParams};
use baton_etcd::EtcdLeaseStore;
use baton_testkit::conformance::{acquire_granted, unique_holder, unique_name};
use baton_testkit::servers::{EtcdServer, ServerTls};
use tokio::time::timeout;

use crate::tls::{Authority, Files};

const TTL: Duration = Duration::from_secs(30);
/// How long a test waits for the release feed.
const PATIENCE: Duration = Duration::from_secs(10);

/// A member serving TLS only with a certificate `authority` signed for `names`; with
/// `client_certificates`, it demands client certificates that `authority` signed.
fn member(authority: &Authority, names: &[&str], client_certificates: bool) -> EtcdServer {
    let issued = authority.issue("etcd", names);
    EtcdServer::start_tls(ServerTls {
        cert_pem: issued.cert_pem,
        key_pem: issued.key_pem,
        client_ca_pem: client_certificates.then(|| authority.pem()),
    })
}

fn path(file: &Path) -> String {
    file.display().to_string()
}

/// Connecting to `url` fails in one line of kind `kind` that contains `expected`.
async fn assert_refused(url: &str, kind: ErrorKind, expected: &str) {
    let err = EtcdLeaseStore::connect(url).await.expect_err("the connection must be refused");
    let message = err.to_string();
    assert_eq!(err.kind(), kind, "{message}");
    assert!(message.contains(expected), "{url}: {message}");
    assert!(!message.contains('\n') && !message.contains("s3cret"), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leases_are_acquired_renewed_released_and_watched_over_tls_with_the_ca() {
    let authority = Authority::new("baton test CA");
    let server = member(&authority, &["127.0.0.1"], false);
    let files = Files::new();
    let ca = path(&files.write("ca.pem", &authority.pem()));
    let url = format!("{}?ca={ca}", server.url());
    assert!(url.starts_with("etcds://127.0.0.1:"), "{url}");

    let store = EtcdLeaseStore::connect(&url).await.expect("TLS with the right CA");
    let mut feed = store.subscribe().await.unwrap().expect("etcd feeds releases");
    let (name, holder) = (unique_name("tls"), unique_holder("h"));
    let (lease, _) = acquire_granted(&store, &name, &holder, TTL).await;
    let renew = RenewParams { name: name.clone(), holder: holder.clone(), token: lease.token };
    let renewed = store.renew(renew).await.expect("renewed over TLS");
    assert_eq!(renewed.token, lease.token);
    let release = ReleaseParams { name: name.clone(), holder, token: lease.token };
    assert!(store.release(release).await.expect("released over TLS"));
    let released = timeout(PATIENCE, feed.next()).await.expect("the watch reports the release");
    assert_eq!(released.unwrap(), name);
    assert_eq!(store.get(&name).await.unwrap().and_then(|stored| stored.holder), None);

    // The library and the command line open an etcds:// URL as they do an etcd:// one.
    assert_eq!(baton::url_kind(&url).unwrap(), baton::UrlKind::LeasesOnly);
    let leases = baton::connect_leases(&url).await.expect("baton opens etcds:// URLs");
    assert_eq!(leases.get(&name).await.unwrap().map(|stored| stored.token), Some(lease.token));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_certificate_from_another_ca_or_for_another_host_is_refused_in_one_line() {
    let authority = Authority::new("baton test CA");
    let server = member(&authority, &["127.0.0.1"], false);
    let files = Files::new();
    let stranger = path(&files.write("stranger.pem", &Authority::new("another CA").pem()));
    let url = format!("{}?ca={stranger}", server.url().replace("://", "://root:s3cret@"));
    let untrusted = "TLS handshake failed: the server's certificate is not signed by a trusted CA";
    assert_refused(&url, ErrorKind::Unavailable, untrusted).await;
    assert_refused(&url, ErrorKind::Unavailable, &format!("127.0.0.1:{}", server.port())).await;
    // Without ca=, the public CAs built in are trusted, and they did not sign it either.
    assert_refused(&server.url(), ErrorKind::Unavailable, untrusted).await;

    let elsewhere = member(&authority, &["etcd.internal"], false);
    let ca = path(&files.write("ca.pem", &authority.pem()));
    let url = format!("{}?ca={ca}", elsewhere.url());
    let host = "the server's certificate is not valid for the host in the URL (etcds:// always \
                checks the host name";
    assert_refused(&url, ErrorKind::Unavailable, host).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_member_demanding_client_certificates_takes_cert_and_key_and_refuses_none() {
    let authority = Authority::new("baton test CA");
    let server = member(&authority, &["127.0.0.1"], true);
    let files = Files::new();
    let ca = path(&files.write("ca.pem", &authority.pem()));
    let client = authority.issue("baton", &["baton"]);
    let cert = path(&files.write("client.pem", &client.cert_pem));
    let key = path(&files.write("client.key", &client.key_pem));

    let url = format!("{}?ca={ca}&cert={cert}&key={key}", server.url());
    let store = EtcdLeaseStore::connect(&url).await.expect("a client certificate the CA signed");
    let (lease, _) = acquire_granted(&store, &unique_name("mtls"), &unique_holder("h"), TTL).await;
    assert_eq!(store.get(&lease.name).await.unwrap(), Some(lease));

    let without = format!("{}?ca={ca}", server.url());
    let demanded = "TLS handshake failed: the member demands a client certificate: give \
                    cert=PATH&key=PATH";
    assert_refused(&without, ErrorKind::Unavailable, demanded).await;

    let stranger = Authority::new("another CA").issue("baton", &["baton"]);
    let cert = path(&files.write("stranger.pem", &stranger.cert_pem));
    let key = path(&files.write("stranger.key", &stranger.key_pem));
    let url = format!("{}?ca={ca}&cert={cert}&key={key}", server.url());
    assert_refused(&url, ErrorKind::Unavailable, "the member refused the client certificate").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plain_scheme_to_a_tls_member_and_tls_to_a_plain_member_say_which_to_use() {
    let authority = Authority::new("baton test CA");
    let server = member(&authority, &["127.0.0.1"], false);
    let plain = server.url().replace("etcds://", "etcd://root:s3cret@");
    assert_refused(&plain, ErrorKind::InvalidInput, "serves TLS only: use etcds://").await;

    let files = Files::new();
    let ca = path(&files.write("ca.pem", &authority.pem()));
    let plain_member = EtcdServer::start();
    let url = format!("{}?ca={ca}", plain_member.url().replace("etcd://", "etcds://"));
    let expected = "TLS handshake failed: the member closed the connection without answering in \
                    TLS, as a plain listener does (use etcd:// for one)";
    assert_refused(&url, ErrorKind::Unavailable, expected).await;
}
