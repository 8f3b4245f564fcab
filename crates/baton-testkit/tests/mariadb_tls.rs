//! TLS to MariaDB: a throwaway server started with certificates made here, and baton
//! connecting with each `ssl-mode`, a CA to trust and a client certificate. Whether baton's own
//! connections are encrypted is asked of the server.

mod tls;

use std::path::Path;

use baton_core::ErrorKind;
use baton_mysql::MysqlBackend;
use baton_testkit::servers::{MariadbConfig, MariadbServer, ServerTls};
use sqlx::Connection;

use crate::tls::{Authority, Files};

/// A server serving TLS with a certificate for `names` signed by `authority`.
fn tls_server(authority: &Authority, names: &[&str], client_ca: Option<String>) -> MariadbServer {
    let server = authority.issue("mariadb", names);
    let tls =
        ServerTls { cert_pem: server.cert_pem, key_pem: server.key_pem, client_ca_pem: client_ca };
    MariadbServer::start_with(MariadbConfig { tls: Some(tls), performance_schema: true })
}

fn with_query(server: &MariadbServer, query: &str) -> String {
    format!("{}?{query}", server.url())
}

fn path(file: &Path) -> String {
    file.display().to_string()
}

/// Connects, migrates and reads through the backend, then answers whether every connection the
/// server sees from baton is encrypted (asked over a connection of the test's own).
async fn works_encrypted(url: &str, admin_url: &str) -> bool {
    let backend = MysqlBackend::connect(url).await.unwrap_or_else(|err| panic!("{err}"));
    backend.migrate().await.expect("migrate over TLS");
    let leases = baton_core::LeaseStore::list(&backend.leases()).await.expect("a read over TLS");
    assert!(leases.is_empty());
    let mut admin = sqlx::MySqlConnection::connect(admin_url).await.expect("the test's connection");
    let transports: Vec<String> = sqlx::query_scalar(
        "SELECT CONNECTION_TYPE FROM performance_schema.threads \
         WHERE PROCESSLIST_ID IS NOT NULL AND PROCESSLIST_ID <> CONNECTION_ID() \
         AND PROCESSLIST_USER = 'root'",
    )
    .fetch_all(&mut admin)
    .await
    .unwrap();
    backend.close().await;
    assert!(!transports.is_empty(), "the backend keeps a connection open");
    assert!(transports.iter().all(|t| t == "SSL/TLS" || t == "TCP/IP"), "{transports:?}");
    transports.iter().all(|transport| transport == "SSL/TLS")
}

/// Connecting to `url` fails with one line of kind `kind` that contains `expected`.
async fn assert_refused(url: &str, kind: ErrorKind, expected: &str) {
    let err = MysqlBackend::connect(url).await.expect_err("the connection must be refused");
    let message = err.to_string();
    assert_eq!(err.kind(), kind, "{message}");
    assert!(message.contains(expected), "{message}");
    assert!(!message.contains('\n'), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn required_encrypts_and_verify_identity_checks_the_ca() {
    let authority = Authority::new("baton test CA");
    let server = tls_server(&authority, &["localhost", "127.0.0.1"], None);
    let files = Files::new();
    let ca = path(&files.write("ca.crt", &authority.pem()));
    let admin = with_query(&server, "ssl-mode=DISABLED");

    assert!(works_encrypted(&with_query(&server, "ssl-mode=REQUIRED"), &admin).await);
    let verified = with_query(&server, &format!("ssl-mode=VERIFY_IDENTITY&ssl-ca={ca}"));
    assert!(works_encrypted(&verified, &admin).await);

    let stranger = Authority::new("another CA");
    let wrong = path(&files.write("wrong.crt", &stranger.pem()));
    let port = server.port();
    assert_refused(
        &with_query(&server, &format!("ssl-mode=verify_identity&ssl-ca={wrong}")),
        ErrorKind::Unavailable,
        &format!(
            "cannot connect to MySQL at 127.0.0.1:{port}: TLS handshake failed: the server's \
             certificate is not signed by a trusted CA (name the CA's certificate file in \
             ssl-ca)"
        ),
    )
    .await;
    // A CA without a mode, or with REQUIRED, is checked as VERIFY_CA does.
    for query in [format!("ssl-ca={wrong}"), format!("ssl-mode=REQUIRED&ssl-ca={wrong}")] {
        let url = with_query(&server, &query);
        assert_refused(&url, ErrorKind::Unavailable, "not signed by a trusted CA").await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_identity_checks_the_host_name_and_verify_ca_does_not() {
    let authority = Authority::new("baton test CA");
    let server = tls_server(&authority, &["db.example"], None);
    let files = Files::new();
    let ca = path(&files.write("ca.crt", &authority.pem()));
    let admin = with_query(&server, "ssl-mode=DISABLED");

    assert_refused(
        &with_query(&server, &format!("ssl-mode=VERIFY_IDENTITY&ssl-ca={ca}")),
        ErrorKind::Unavailable,
        "TLS handshake failed: the server's certificate is not valid for the host in the URL \
         (ssl-mode=VERIFY_IDENTITY checks the host name, VERIFY_CA does not)",
    )
    .await;
    let verify_ca = with_query(&server, &format!("ssl-mode=VERIFY_CA&ssl-ca={ca}"));
    assert!(works_encrypted(&verify_ca, &admin).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_certificate_is_presented_when_the_server_demands_one() {
    let authority = Authority::new("baton test CA");
    let clients = Authority::new("baton client CA");
    let server = tls_server(&authority, &["127.0.0.1"], Some(clients.pem()));
    let files = Files::new();
    let ca = path(&files.write("ca.crt", &authority.pem()));
    let client = clients.issue("root", &[]);
    let cert = path(&files.write("client.crt", &client.cert_pem));
    let key = path(&files.write("client.key", &client.key_pem));

    // MariaDB refuses a missing certificate as it does a wrong password.
    let hint = "(and ssl-cert and ssl-key if the account requires a client certificate)";
    let without = with_query(&server, &format!("ssl-mode=VERIFY_IDENTITY&ssl-ca={ca}"));
    assert_refused(&without, ErrorKind::InvalidInput, hint).await;
    assert_refused(&with_query(&server, "ssl-mode=DISABLED"), ErrorKind::InvalidInput, hint).await;

    let with = format!("{without}&ssl-cert={cert}&ssl-key={key}");
    assert!(works_encrypted(&with, &with).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn required_fails_against_a_server_without_tls_and_preferred_falls_back() {
    let server = MariadbServer::start_with(MariadbConfig { tls: None, performance_schema: true });
    assert_refused(
        &with_query(&server, "ssl-mode=REQUIRED"),
        ErrorKind::Unavailable,
        "TLS: server does not support TLS",
    )
    .await;
    let admin = with_query(&server, "ssl-mode=DISABLED");
    assert!(!works_encrypted(&with_query(&server, "ssl-mode=PREFERRED"), &admin).await);
}
