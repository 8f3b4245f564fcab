//! Leases in Consul (the testkit's emulated agent), state elsewhere: `baton exec` and the lease
//! commands on a `consul://` URL alone, an agent whose leader leases live there while its jobs
//! and executions live in SQLite, and the line printed when the ACL token is refused.

use baton_testkit::servers::ConsulServer;

mod common;

use common::agent::Site;
use common::{split, stderr};

#[test]
fn exec_and_the_lease_commands_work_on_consul_alone() {
    let server = ConsulServer::start();
    let site = Site::new();
    split::exec_and_the_lease_commands_work_alone(&site, &server.url(), &["--ttl", "10s"]);
    split::exec_refuses_a_ttl(&site, &server.url(), "5s", "whole seconds from 10s to 24h");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_keeps_its_leader_leases_in_consul_and_its_state_in_sql() {
    let server = ConsulServer::start();
    split::agent_keeps_its_leader_leases_apart(&Site::new(), &server.url()).await;
}

#[test]
fn a_refused_acl_token_is_one_line_that_never_shows_the_token() {
    let server = ConsulServer::start_with_acl_token("the-right-token");
    let site = Site::new();
    let out = site
        .baton(&["lease", "list", "--backend", &server.url()])
        .env("CONSUL_HTTP_TOKEN", "a-wrong-token")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(stderr(&out).lines().count(), 1, "one line: {}", stderr(&out));
    assert!(stderr(&out).contains("refused the ACL token"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("a-wrong-token"), "{}", stderr(&out));
    let listed = site
        .baton(&["lease", "list", "--backend", &server.url()])
        .env("CONSUL_HTTP_TOKEN", "the-right-token")
        .output()
        .unwrap();
    assert!(listed.status.success(), "{}", stderr(&listed));
}
