//! Leases in etcd, state elsewhere: `baton exec` and the lease commands on an etcd URL alone,
//! and an agent whose leader leases live in etcd while its jobs and executions live in SQLite.

use baton_testkit::servers::EtcdServer;

mod common;

use common::agent::Site;
use common::split;

#[test]
fn exec_and_the_lease_commands_work_on_etcd_alone() {
    let etcd = EtcdServer::start();
    let site = Site::new();
    split::exec_and_the_lease_commands_work_alone(&site, &etcd.url(), &["--ttl", "5s"]);
    split::exec_refuses_a_ttl(&site, &etcd.url(), "1500ms", "whole seconds");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_keeps_its_leader_leases_in_etcd_and_its_state_in_sql() {
    let server = EtcdServer::start();
    split::agent_keeps_its_leader_leases_apart(&Site::new(), &server.url()).await;
}
