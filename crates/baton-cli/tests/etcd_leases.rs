//! Leases in etcd, state elsewhere: `baton exec` and the lease commands on an etcd URL alone,
//! and an agent whose leader leases live in etcd while its jobs and executions live in SQLite.

use baton_testkit::servers::EtcdServer;

mod common;

use common::agent::Site;
use common::split;
use common::{stderr, stdout};

#[test]
fn exec_and_the_lease_commands_work_on_etcd_alone() {
    let etcd = EtcdServer::start();
    let site = Site::new();
    let run = |args: &[&str]| site.baton(args).output().unwrap();
    let exec = ["exec", "--backend", &etcd.url(), "--lock", "nightly", "--ttl", "5s", "--"];
    let tokens: Vec<u64> = (0..2)
        .map(|_| {
            let out = run(&[&exec[..], &["sh", "-c", "echo $BATON_FENCING_TOKEN"]].concat());
            assert!(out.status.success(), "{}", stderr(&out));
            stdout(&out).trim().parse().unwrap()
        })
        .collect();
    assert!(tokens[1] > tokens[0], "tokens rise: {tokens:?}");
    let history = run(&["history", "--backend", &etcd.url(), "--lease", "nightly"]);
    assert_eq!(stdout(&history).matches("nightly").count(), 2, "{}", stdout(&history));
    let list = run(&["lease", "list", "--backend", &etcd.url()]);
    assert!(stdout(&list).contains("nightly"), "{}", stdout(&list));
    let refused =
        run(&[&exec[..2], &[&etcd.url(), "--lock", "x", "--ttl", "1500ms", "--", "true"]].concat());
    assert!(!refused.status.success());
    assert_eq!(stderr(&refused).lines().count(), 1, "one line: {}", stderr(&refused));
    assert!(stderr(&refused).contains("whole seconds"), "{}", stderr(&refused));
    assert!(!site.path("baton.db").exists(), "no SQLite file was made on the side");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_keeps_its_leader_leases_in_etcd_and_its_state_in_sql() {
    let server = EtcdServer::start();
    split::agent_keeps_its_leader_leases_apart(&Site::new(), &server.url()).await;
}
