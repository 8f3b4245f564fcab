//! Leases in Azure blob leases (on Azurite, Microsoft's emulator), state elsewhere: `baton
//! exec` and the lease commands on an `azblob://` URL alone, a TTL the service does not grant,
//! and the line printed when no account key can be found.

use baton_testkit::servers::AzuriteServer;

mod common;

use common::agent::Site;
use common::{split, stderr};

#[test]
fn exec_and_the_lease_commands_work_on_azure_blob_leases_alone() {
    let server = AzuriteServer::start();
    let site = Site::new();
    split::exec_and_the_lease_commands_work_alone(&site, &server.url(), &["--ttl", "15s"]);
    split::exec_refuses_a_ttl(&site, &server.url(), "10s", "15s to 60s");
}

#[test]
fn without_an_account_key_the_command_says_so_in_one_line() {
    let server = AzuriteServer::start();
    let site = Site::new();
    let url = format!(
        "azblob://{}/{}?endpoint={}",
        AzuriteServer::ACCOUNT,
        AzuriteServer::CONTAINER,
        server.endpoint()
    );
    let out = site
        .baton(&["lease", "list", "--backend", &url])
        .env_remove("AZURE_STORAGE_KEY")
        .env_remove("AZURE_STORAGE_CONNECTION_STRING")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(stderr(&out).lines().count(), 1, "one line: {}", stderr(&out));
    assert!(
        stderr(&out).contains("no key for Azure storage account devstoreaccount1"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_key_from_the_environment_is_used_and_never_printed() {
    let server = AzuriteServer::start();
    let site = Site::new();
    let url = format!(
        "azblob://{}/{}?endpoint={}",
        AzuriteServer::ACCOUNT,
        AzuriteServer::CONTAINER,
        server.endpoint()
    );
    let listed = site
        .baton(&["lease", "list", "--backend", &url])
        .env("AZURE_STORAGE_KEY", AzuriteServer::KEY)
        .output()
        .unwrap();
    assert!(listed.status.success(), "{}", stderr(&listed));
    let refused = site
        .baton(&["lease", "list", "--backend", &url])
        .env("AZURE_STORAGE_KEY", "d3Jvbmcga2V5")
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert_eq!(stderr(&refused).lines().count(), 1, "one line: {}", stderr(&refused));
    assert!(stderr(&refused).contains("refuses the account key"), "{}", stderr(&refused));
    assert!(!stderr(&refused).contains("d3Jvbmc"), "{}", stderr(&refused));
}
