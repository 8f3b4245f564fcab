//! TLS to PostgreSQL: a throwaway server started with `ssl=on` and certificates made here, and
//! baton connecting with each `sslmode`, a CA to trust and a client certificate.

mod tls;

use std::path::Path;

use baton_core::ErrorKind;
use baton_postgres::PostgresBackend;
use baton_testkit::servers::{PostgresConfig, PostgresServer, ServerTls};
use sqlx::Connection;

use crate::tls::{Authority, Files};

/// A server serving TLS with a certificate for `names` signed by `authority`.
fn tls_server(authority: &Authority, names: &[&str], client_ca: Option<String>) -> PostgresServer {
    let server = authority.issue("postgres", names);
    let tls =
        ServerTls { cert_pem: server.cert_pem, key_pem: server.key_pem, client_ca_pem: client_ca };
    PostgresServer::start_with(PostgresConfig { tls: Some(tls), ..Default::default() })
}

fn with_query(server: &PostgresServer, query: &str) -> String {
    format!("{}?{query}", server.url())
}

fn path(file: &Path) -> String {
    file.display().to_string()
}

/// Connects, migrates and reads through the backend, then answers whether every connection the
/// server sees from baton is encrypted (asked over a connection of the test's own).
async fn works_encrypted(url: &str, admin_url: &str) -> bool {
    let backend = PostgresBackend::connect(url).await.unwrap_or_else(|err| panic!("{err}"));
    backend.migrate().await.expect("migrate over TLS");
    let leases = baton_core::LeaseStore::list(&backend.leases()).await.expect("a read over TLS");
    assert!(leases.is_empty());
    let mut admin = sqlx::PgConnection::connect(admin_url).await.expect("the test's connection");
    let encrypted: Vec<bool> = sqlx::query_scalar(
        "SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) \
         WHERE a.application_name = 'baton'",
    )
    .fetch_all(&mut admin)
    .await
    .unwrap();
    backend.close().await;
    assert!(!encrypted.is_empty(), "the backend keeps a connection open");
    encrypted.into_iter().all(|ssl| ssl)
}

/// Connecting to `url` fails with one line of kind Unavailable that contains `expected`.
async fn assert_refused(url: &str, expected: &str) {
    let err = PostgresBackend::connect(url).await.expect_err("the connection must be refused");
    let message = err.to_string();
    assert_eq!(err.kind(), ErrorKind::Unavailable, "{message}");
    assert!(message.contains(expected), "{message}");
    assert!(!message.contains('\n'), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn require_encrypts_and_verify_full_checks_the_ca() {
    let authority = Authority::new("baton test CA");
    let server = tls_server(&authority, &["localhost", "127.0.0.1"], None);
    let files = Files::new();
    let ca = path(&files.write("ca.crt", &authority.pem()));
    let admin = with_query(&server, "sslmode=disable");

    assert!(works_encrypted(&with_query(&server, "sslmode=require"), &admin).await);
    let verified = with_query(&server, &format!("sslmode=verify-full&sslrootcert={ca}"));
    assert!(works_encrypted(&verified, &admin).await);

    let stranger = Authority::new("another CA");
    let wrong = path(&files.write("wrong.crt", &stranger.pem()));
    let port = server.port();
    assert_refused(
        &with_query(&server, &format!("sslmode=verify-full&sslrootcert={wrong}")),
        &format!(
            "cannot connect to PostgreSQL at 127.0.0.1:{port}: TLS handshake failed: the \
             server's certificate is not signed by a trusted CA (name the CA's certificate file \
             in sslrootcert)"
        ),
    )
    .await;
    // As in libpq, require with a root certificate checks the CA too.
    assert_refused(
        &with_query(&server, &format!("sslmode=require&sslrootcert={wrong}")),
        "not signed by a trusted CA",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_full_checks_the_host_name_and_verify_ca_does_not() {
    let authority = Authority::new("baton test CA");
    let server = tls_server(&authority, &["db.example"], None);
    let files = Files::new();
    let ca = path(&files.write("ca.crt", &authority.pem()));
    let admin = with_query(&server, "sslmode=disable");

    assert_refused(
        &with_query(&server, &format!("sslmode=verify-full&sslrootcert={ca}")),
        "TLS handshake failed: the server's certificate is not valid for the host in the URL",
    )
    .await;
    let verify_ca = with_query(&server, &format!("sslmode=verify-ca&sslrootcert={ca}"));
    assert!(works_encrypted(&verify_ca, &admin).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_certificate_is_presented_when_the_server_demands_one() {
    let authority = Authority::new("baton test CA");
    let clients = Authority::new("baton client CA");
    let server = tls_server(&authority, &["127.0.0.1"], Some(clients.pem()));
    let files = Files::new();
    let ca = path(&files.write("ca.crt", &authority.pem()));
    let client = clients.issue("postgres", &[]);
    let cert = path(&files.write("client.crt", &client.cert_pem));
    let key = path(&files.write("client.key", &client.key_pem));

    let without = with_query(&server, &format!("sslmode=verify-full&sslrootcert={ca}"));
    assert_refused(&without, "connection requires a valid client certificate").await;
    assert_refused(&with_query(&server, "sslmode=disable"), "no pg_hba.conf entry").await;

    let with = format!("{without}&sslcert={cert}&sslkey={key}");
    assert!(works_encrypted(&with, &with).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn require_fails_against_a_server_without_tls_and_prefer_falls_back() {
    let server = PostgresServer::start();
    assert_refused(&with_query(&server, "sslmode=require"), "TLS: server does not support TLS")
        .await;
    let admin = with_query(&server, "sslmode=disable");
    assert!(!works_encrypted(&with_query(&server, "sslmode=prefer"), &admin).await);
}
