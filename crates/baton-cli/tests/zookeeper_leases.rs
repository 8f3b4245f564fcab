//! Leases in ZooKeeper, state elsewhere: `baton exec` and the lease commands on a `zk://` URL
//! alone, and an agent whose leader leases live in ZooKeeper while its jobs and executions live
//! in SQLite.

use baton_testkit::servers::ZookeeperServer;

mod common;

use common::agent::Site;
use common::split;

#[test]
fn exec_and_the_lease_commands_work_on_zookeeper_alone() {
    let zookeeper = ZookeeperServer::start();
    let site = Site::new();
    split::exec_and_the_lease_commands_work_alone(&site, &zookeeper.url(), &["--ttl", "5s"]);
    split::exec_refuses_a_ttl(&site, &zookeeper.url(), "1h", "session timeout");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_keeps_its_leader_leases_in_zookeeper_and_its_state_in_sql() {
    let server = ZookeeperServer::start();
    split::agent_keeps_its_leader_leases_apart(&Site::new(), &server.url()).await;
}
